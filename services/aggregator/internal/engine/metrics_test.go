package engine

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/aggregator/internal/publish"
)

// The metrics follow the engine: publishes by reason, each inventory's rows
// and envelope size, the durations, the rows applied; a deleted inventory's
// series go, whatever its deletionPolicy.
func TestMetricsFollowPublishesAndDeletions(t *testing.T) {
	b := newBed(t, nil)
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	keep, drop := nsInventory("team-a", "keep"), nsInventory("team-b", "drop", binding("kafka", time.Hour))
	drop.DeletionPolicy = busv1.DeletionDelete
	b.putInventory(keep)
	b.putInventory(drop)
	for i := range 3 {
		b.putRow(mkRow("team-a", "web", rowName(i), i))
	}
	for i := range 2 {
		b.putRow(mkRow("team-b", "web", rowName(10+i), i))
	}
	e := b.start(Options{Settle: 5 * time.Millisecond, Metrics: m})
	waitFor(t, "both snapshots", func() bool { return e.events.Load() == 2 })

	got := map[string]float64{
		"leader":                    testutil.ToFloat64(m.leader),
		"publishes change":          testutil.ToFloat64(m.publishes.WithLabelValues(string(busv1.ReasonChange))),
		"publish errors":            testutil.ToFloat64(m.publishErrors),
		"row updates":               testutil.ToFloat64(m.rowUpdates),
		"snapshot rows team-a/keep": testutil.ToFloat64(m.rows.WithLabelValues("team-a/keep")),
		"snapshot rows team-b/drop": testutil.ToFloat64(m.rows.WithLabelValues("team-b/drop")),
	}
	want := map[string]float64{"leader": 1, "publishes change": 2, "publish errors": 0, "row updates": 5,
		"snapshot rows team-a/keep": 3, "snapshot rows team-b/drop": 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics after the first snapshots (-want +got):\n%s", diff)
	}
	for _, inv := range []busv1.NamespacedName{key("team-a", "keep"), key("team-b", "drop")} {
		items := b.history(inv)[0].Event.Envelope.Items
		size := 2 + max(len(items)-1, 0)
		for i := range items {
			raw, err := snapshot.Canonical(&items[i])
			if err != nil {
				t.Fatal(err)
			}
			size += len(raw)
		}
		if n := testutil.ToFloat64(m.bytes.WithLabelValues(inv.String())); n <= 0 || n != float64(size) {
			t.Errorf("%s: snapshot bytes %v, want the item list's %d", inv, n, size)
		}
	}
	for _, name := range []string{NameSnapshotDuration, NamePublishDuration} {
		if n := sampleCount(t, reg, name); n < 2 {
			t.Errorf("%s holds %d observations, want at least 2", name, n)
		}
	}

	b.deleteInventory(keep)
	b.deleteInventory(drop)
	waitFor(t, "the final snapshot", func() bool { return e.events.Load() == 3 })
	waitFor(t, "the deleted inventories' series to go", func() bool {
		return testutil.CollectAndCount(m.rows) == 0 && testutil.CollectAndCount(m.bytes) == 0
	})
	if n := testutil.ToFloat64(m.publishes.WithLabelValues(string(busv1.ReasonDeleted))); n != 1 {
		t.Errorf("publishes deleted = %v, want 1", n)
	}
}

// A publish that another writer overtook counts as an error and is retried;
// a stopped engine reports no leader and no inventory.
func TestMetricsCountAFailedPublishAndClearWhenTheEngineStops(t *testing.T) {
	b := newBed(t, nil)
	clock := newFakeClock()
	m := NewMetrics(prometheus.NewRegistry())
	inv := nsInventory("team-a", "inv")
	b.putInventory(inv)
	b.putRow(mkRow("team-a", "web", "u1", 1))
	e, stop := b.startStoppable(Options{Settle: time.Second, RetryBackoff: time.Second, Clock: clock, Metrics: m})
	waitFor(t, "the first snapshot", func() bool { return e.events.Load() == 1 })

	publishEmptyRevision(t, b, key("team-a", "inv"), 2)
	last := b.putRow(mkRow("team-a", "web", "u2", 1))
	waitFor(t, "the row", func() bool { return e.rowsRev.Load() >= last })
	clock.Advance(time.Second)
	waitFor(t, "the failed publish", func() bool { return testutil.ToFloat64(m.publishErrors) == 1 })
	clock.Advance(time.Second)
	waitFor(t, "revision 3", func() bool { return e.events.Load() == 2 })
	if n := testutil.ToFloat64(m.publishes.WithLabelValues(string(busv1.ReasonChange))); n != 2 {
		t.Errorf("publishes change = %v, want 2", n)
	}
	if n := testutil.ToFloat64(m.rows.WithLabelValues("team-a/inv")); n != 2 {
		t.Errorf("snapshot rows = %v, want 2", n)
	}

	stop()
	if l, n := testutil.ToFloat64(m.leader), testutil.CollectAndCount(m.rows); l != 0 || n != 0 {
		t.Errorf("stopped engine: leader %v, %d inventory series; want 0 and none", l, n)
	}
}

// publishEmptyRevision publishes, as another writer would, an empty snapshot
// at rev after the subject's last event.
func publishEmptyRevision(t *testing.T, b *bed, inv busv1.NamespacedName, rev uint64) {
	t.Helper()
	ctx := context.Background()
	_, seq, err := history.LastPublished(ctx, b.js, inv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := publish.New(ctx, b.js, b.js.Conn(), 0)
	if err != nil {
		t.Fatal(err)
	}
	empty := snapshot.ChecksumOfDigests(nil)
	ev := busv1.SnapshotEvent{Inventory: inv, Revision: rev, Generation: 1, Checksum: empty,
		CreatedAt: time.Now().UTC(), Reason: busv1.ReasonChange, Bindings: []busv1.Binding{},
		DeletionPolicy: busv1.DeletionRetain}
	if _, err := p.Publish(ctx, ev, publish.Content{Envelope: spliceEnvelope(&ev, nil)}, seq); err != nil {
		t.Fatal(err)
	}
}

// sampleCount returns the observations of every series of the histogram
// name gathered from reg.
func sampleCount(t *testing.T, reg *prometheus.Registry, name string) uint64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			n += m.GetHistogram().GetSampleCount()
		}
	}
	return n
}
