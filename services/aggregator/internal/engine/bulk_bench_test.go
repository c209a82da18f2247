package engine

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
)

// busBytes is what the bus holds of snapshots: the envelope store's objects
// and the snapshot stream's events. With garbage collection off, and
// content-addressed objects written once, it is what the aggregator wrote.
func busBytes(t testing.TB, b *bed) (objects, events int64) {
	t.Helper()
	for _, size := range storeObjects(t, b) {
		objects += int64(size)
	}
	s, err := b.js.Stream(context.Background(), bus.StreamSnapshots)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return objects, int64(info.State.Bytes)
}

// initialSync writes rows, in random order, at perSecond into a running
// engine with the default settle window, and returns the bytes the
// aggregator wrote to the bus per byte of the final snapshot, the number of
// events, and the time from the last row to the event holding every row.
func initialSync(tb testing.TB, rows, perSecond int) (objRatio, evRatio float64, events int64, tail time.Duration) {
	b := newBed(tb, nil)
	inv := nsInventory("team-a", "big")
	b.putInventory(inv)
	e := b.start(Options{Settle: 250 * time.Millisecond})
	k := key(inv.Namespace, inv.Name)
	waitFor(tb, "the engine", func() bool { return e.started.Load() })
	all := make([]busv1.Row, rows)
	for i := range all {
		all[i] = benchRow(0, i, 0)
		all[i].TargetNamespace, all[i].Namespace = "team-a", "team-a"
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	const batch = 500
	tick := time.Duration(float64(time.Second) * batch / float64(perSecond))
	next := time.Now()
	for i := 0; i < rows; i += batch {
		putRowsAsync(tb, b, all[i:min(i+batch, rows)])
		next = next.Add(tick)
		time.Sleep(time.Until(next)) // pacing the arrival, not waiting for a condition
	}
	done := time.Now()
	waitFor(tb, "the event holding every row", func() bool { return lastEvent(tb, b, k).ItemCount == rows })
	tail = time.Since(done)
	ev := lastEvent(tb, b, k)
	m, err := history.NewLoader(b.js, -1).Manifest(context.Background(), &ev)
	if err != nil {
		tb.Fatal(err)
	}
	obj, evb := busBytes(tb, b)
	return float64(obj) / float64(m.Bytes), float64(evb) / float64(m.Bytes), e.events.Load(), tail
}

// BenchmarkInitialSync100kRows measures the bytes the aggregator writes to
// the bus while 100,000 rows arrive in random order over about ten seconds,
// per byte of the final snapshot (the goal is at most 2 in all).
func BenchmarkInitialSync100kRows(b *testing.B) {
	var obj, evb float64
	var events int64
	var tail time.Duration
	for range b.N {
		obj, evb, events, tail = initialSync(b, 100_000, 10_000)
	}
	b.ReportMetric(obj, "objB/snapB")
	b.ReportMetric(evb, "eventB/snapB")
	b.ReportMetric(obj+evb, "busB/snapB")
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(tail.Seconds(), "tail-s")
}
