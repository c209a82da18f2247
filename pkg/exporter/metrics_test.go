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
	if n := counterValue(t, reg, exporter.NameExportDuration, "family", "snapshot", "type", "memory", "mode", exporter.ModeFull); n != 1 {
		t.Fatalf("%s counts %v exports, want 1", exporter.NameExportDuration, n)
	}
	if n := counterValue(t, reg, exporter.NameExportBytes, "type", "memory"); n <= 0 {
		t.Fatalf("%s = %v, want the envelope's size", exporter.NameExportBytes, n)
	}
}

func TestExportMetricsSayWhetherTheSinkAppliedADeltaOrTheFullSnapshot(t *testing.T) {
	e := newEnv(t, "good")
	reg := prometheus.NewRegistry()
	e.start(func(c *exporter.Config) { c.Metrics = reg })
	deltaThenGap(t, e)
	for _, tc := range []struct {
		mode string
		want float64
	}{{exporter.ModeFull, 2}, {exporter.ModeDelta, 1}} {
		if n := counterValue(t, reg, exporter.NameExportDuration, "type", "memory", "mode", tc.mode); n != tc.want {
			t.Errorf("%s{mode=%q} counts %v writes, want %v", exporter.NameExportDuration, tc.mode, n, tc.want)
		}
		if n := counterValue(t, reg, exporter.NameExportBytes, "type", "memory", "mode", tc.mode); n <= 0 {
			t.Errorf("%s{mode=%q} = %v, want the envelopes' size", exporter.NameExportBytes, tc.mode, n)
		}
	}
}

func TestBusReadsAndChunkCacheAreCountedInMetrics(t *testing.T) {
	e := newEnv(t, "good")
	c := newChunked(t, e, "good")
	reg := prometheus.NewRegistry()
	e.start(func(cfg *exporter.Config) { cfg.Metrics, cfg.Loader = reg, c.l })
	c.publish(t, 1, manyRows(1000, "1"), true)
	waitFor(t, "revision 1", func() bool { return e.stored("good") == 1 })
	read := counterValue(t, reg, exporter.NameBusBytesRead)
	if read <= 0 || read != float64(c.l.BytesRead.Load()) {
		t.Fatalf("%s = %v after a full write, the loader read %d", exporter.NameBusBytesRead, read, c.l.BytesRead.Load())
	}
	if n := counterValue(t, reg, exporter.NameChunkCache, "result", "miss"); n <= 0 {
		t.Errorf("%s{result=miss} = %v after a first read", exporter.NameChunkCache, n)
	}
	c.publish(t, 2, set(manyRows(1000, "1"), vrow("r-000500", "2")), false)
	waitFor(t, "revision 2", func() bool { return e.stored("good") == 2 })
	if n := counterValue(t, reg, exporter.NameBusBytesRead); n != read {
		t.Errorf("%s grew from %v to %v for a delta that applies", exporter.NameBusBytesRead, read, n)
	}
}
