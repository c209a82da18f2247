package exporter_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter"
)

// counterValue sums the samples of metric name (counters and histogram
// counts) in reg.
func counterValue(t *testing.T, reg *prometheus.Registry, name string, labels ...string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			for i := 0; i+1 < len(labels); i += 2 {
				found := false
				for _, lp := range m.GetLabel() {
					found = found || lp.GetName() == labels[i] && lp.GetValue() == labels[i+1]
				}
				if !found {
					continue metrics
				}
			}
			switch {
			case m.GetCounter() != nil:
				sum += m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				sum += float64(m.GetHistogram().GetSampleCount())
			case m.GetGauge() != nil:
				sum += m.GetGauge().GetValue()
			}
		}
	}
	return sum
}

func TestExportsAndFailuresAreCountedInMetrics(t *testing.T) {
	e := newEnv(t, "good", "bad")
	reg := prometheus.NewRegistry()
	e.start(func(c *exporter.Config) { c.Metrics = reg })
	e.publish(1, busv1.ReasonChange, []string{"good", "bad"}, "a")
	waitFor(t, "revision 1 in the good sink", func() bool { return e.stored("good") == 1 })
	waitFor(t, "the permanent failure counted", func() bool {
		return counterValue(t, reg, exporter.NameExportErrors, "type", "memory", "reason", exporter.ReasonPermanent) == 1
	})
	if n := counterValue(t, reg, exporter.NameExportDuration, "family", "snapshot", "type", "memory"); n != 1 {
		t.Fatalf("%s counts %v exports, want 1", exporter.NameExportDuration, n)
	}
	if n := counterValue(t, reg, exporter.NameExportBytes, "type", "memory"); n <= 0 {
		t.Fatalf("%s = %v, want the envelope's size", exporter.NameExportBytes, n)
	}
}
