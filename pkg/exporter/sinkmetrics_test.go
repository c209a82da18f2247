package exporter_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter"
)

// seriesOf counts the series of metric name in reg.
func seriesOf(t *testing.T, reg *prometheus.Registry, name string) int {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return len(mf.GetMetric())
		}
	}
	return 0
}

func TestPerSinkMetricsNameTheSinkAndGoWithIt(t *testing.T) {
	e := newEnv(t, "good", "bad")
	reg := prometheus.NewRegistry()
	e.start(func(c *exporter.Config) { c.Metrics = reg })
	before := time.Now()
	e.publish(1, busv1.ReasonChange, []string{"good", "bad"}, "a", "b", "c")
	waitFor(t, "revision 1 in the good sink", func() bool { return e.stored("good") == 1 })
	good := []string{"family", "snapshot", "sink_namespace", "team-a", "sink", "good", "type", "memory", "cluster", "east"}
	waitFor(t, "the good sink's last success recorded", func() bool {
		return counterValue(t, reg, exporter.NameSinkLastSuccess, good...) > 0
	})
	if ts := counterValue(t, reg, exporter.NameSinkLastSuccess, good...); ts < float64(before.Unix()) || ts > float64(time.Now().Unix()+1) {
		t.Errorf("%s = %v, want a Unix time between the publish and now", exporter.NameSinkLastSuccess, ts)
	}
	binding := append(append([]string(nil), good...), "inventory_namespace", inv.Namespace, "inventory", inv.Name)
	if ts := counterValue(t, reg, exporter.NameBindingLastSuccess, binding...); ts < float64(before.Unix()) || ts > float64(time.Now().Unix()+1) {
		t.Errorf("%s of team-a/web = %v, want a Unix time between the publish and now", exporter.NameBindingLastSuccess, ts)
	}
	for name, want := range map[string]float64{exporter.NameSinkExports: 1, exporter.NameSinkRows: 3} {
		if n := counterValue(t, reg, name, good...); n != want {
			t.Errorf("%s of the good sink = %v, want %v", name, n, want)
		}
	}
	if n := counterValue(t, reg, exporter.NameSinkBytes, good...); n <= 0 {
		t.Errorf("%s of the good sink = %v, want the envelope's size", exporter.NameSinkBytes, n)
	}
	// A periodic event of a revision still in flight for the binding is
	// dropped in favour of it (worker.offer): the first event is done only
	// when the bad sink's failure is dead-lettered and the message
	// acknowledged, some time after the failure is counted.
	waitFor(t, "the bad sink's permanent failure counted", func() bool {
		return counterValue(t, reg, exporter.NameSinkFailures, "sink", "bad", "type", "memory", "reason", exporter.ReasonPermanent) == 1
	})
	waitFor(t, "the first event acknowledged", func() bool { return e.ackPending() == 0 })
	t1 := counterValue(t, reg, exporter.NameSinkLastSuccess, good...)
	waitFor(t, "the clock past the first success", func() bool { return float64(time.Now().UnixMilli())/1e3 > t1 })
	e.publish(1, busv1.ReasonPeriodic, []string{"good"}, "a", "b", "c")
	waitFor(t, "a periodic re-export the sink already holds moving its last success on", func() bool {
		return counterValue(t, reg, exporter.NameSinkLastSuccess, good...) > t1
	})
	if b := counterValue(t, reg, exporter.NameBindingLastSuccess, binding...); b <= t1 {
		t.Errorf("%s of team-a/web = %v after the re-export, want past %v", exporter.NameBindingLastSuccess, b, t1)
	}
	if n := counterValue(t, reg, exporter.NameSinkExports, good...); n != 1 {
		t.Errorf("%s of the good sink = %v after a re-export it already held, want 1 (no write)", exporter.NameSinkExports, n)
	}
	if n := counterValue(t, reg, exporter.NameSinkLastSuccess, "sink", "bad"); n != 0 {
		t.Errorf("the bad sink has a last success (%v), it never succeeded", n)
	}
	if n := counterValue(t, reg, exporter.NameBindingLastSuccess, "sink", "bad"); n != 0 {
		t.Errorf("the bad sink's binding has a last success (%v), it never succeeded", n)
	}

	kv, err := e.n.JS.KeyValue(context.Background(), bus.BucketConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"good", "bad"} {
		if err := kv.Delete(context.Background(), bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindSnapshotSink, Namespace: "team-a", Name: s})); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{exporter.NameSinkLastSuccess, exporter.NameBindingLastSuccess, exporter.NameSinkExports, exporter.NameSinkBytes,
		exporter.NameSinkRows, exporter.NameSinkFailures} {
		waitFor(t, name+" series of the deleted sinks gone", func() bool { return seriesOf(t, reg, name) == 0 })
	}
}
