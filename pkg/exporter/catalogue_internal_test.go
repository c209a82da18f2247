package exporter

import (
	"testing"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/app/apptest"
	"kollect.dev/kollect/pkg/history"
)

// The catalogue is what the chart's dashboards and alerts, and
// docs/operations.md, are checked against.
func TestTheMetricCatalogueListsEveryRegisteredFamily(t *testing.T) {
	var k apptest.Catalogue
	k.MustRegister(app.ServiceCollectors()...)
	m := newMetrics(&k, "snapshot")
	m.registerTracker(&k, newTracker(1, 1))
	registerLoader(&k, "snapshot", history.NewLoader(nil, 0))
	apptest.CheckMetrics(t, &k)
}
