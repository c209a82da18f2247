package engine

import (
	"testing"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/app/apptest"
)

// The catalogue is what the chart's dashboards and alerts, and
// docs/operations.md, are checked against.
func TestTheMetricCatalogueListsEveryRegisteredFamily(t *testing.T) {
	var k apptest.Catalogue
	k.MustRegister(app.ServiceCollectors()...)
	NewMetrics(&k)
	apptest.CheckMetrics(t, &k)
}
