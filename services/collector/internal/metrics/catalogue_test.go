package metrics

import (
	"testing"

	"kollect.dev/kollect/pkg/app/apptest"
)

// The catalogue is what the chart's dashboards and alerts, and
// docs/operations.md, are checked against.
func TestTheMetricCatalogueListsEveryRegisteredFamily(t *testing.T) {
	var k apptest.Catalogue
	k.MustRegister(New().collectors()...)
	k.Add(droppedDesc, overflowDesc) // the Profile gauges are unchecked: they describe nothing
	apptest.CheckMetrics(t, &k)
}
