package exporter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"kollect.dev/kollect/pkg/bus"
)

// BenchmarkApplyOneRowDelta applies one-row changes to a 100k-row inventory
// (snapshot in chunks, delta inline, as the aggregator publishes them) and
// reports what each change reads from the bus: the event plus every object
// the runtime loads. Issue #17's target is at most 64 KB; the benchmark
// fails above it.
func BenchmarkApplyOneRowDelta(b *testing.B) {
	const n = 100_000
	e := newEnv(b, "good")
	c := newChunked(b, e, "good")
	e.start(withLoader(c))
	rows := manyRows(n, "1")
	c.publish(b, 1, rows, true)
	waitFor(b, "the initial full write", func() bool { return e.stored("good") == 1 })
	read, chunks := c.l.BytesRead.Load(), c.l.ChunkMisses.Load()+c.l.ChunkHits.Load()
	var events int64
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		rev := uint64(i + 2)
		rows = set(rows, vrow(fmt.Sprintf("r-%06d", (i*7919)%n), fmt.Sprint(rev)))
		msg, err := json.Marshal(c.event(b, rev, rows, false))
		if err != nil {
			b.Fatal(err)
		}
		events += int64(len(msg))
		b.StartTimer()
		if _, err := e.n.JS.Publish(context.Background(), bus.SnapshotSubject(inv), msg); err != nil {
			b.Fatal(err)
		}
		waitFor(b, "the change in the sink", func() bool {
			w := e.b.stores["good"].Writes() // not Get, which copies 100k rows
			return len(w) > 0 && w[len(w)-1].Revision == rev
		})
	}
	b.StopTimer()
	perOp := float64(c.l.BytesRead.Load()-read+events) / float64(b.N)
	b.ReportMetric(perOp, "bus-B/op")
	b.ReportMetric(float64(c.l.ChunkMisses.Load()+c.l.ChunkHits.Load()-chunks)/float64(b.N), "chunks/op")
	if perOp > 64<<10 {
		b.Errorf("a one-row change read %.0f bytes from the bus, want at most %d", perOp, 64<<10)
	}
}
