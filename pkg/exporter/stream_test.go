package exporter_test

import (
	"context"
	"testing"

	"kollect.dev/kollect/pkg/exporter"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink/memory"
)

// TestAStreamingSinkReadsAFullWriteChunkByChunk checks what a
// sink.RowStreamer receives for a full write: a header-only snapshot whose
// rows it reads from the manifest's chunks, which the chunk cache does not
// keep (a large inventory's full write would evict what deltas reuse).
func TestAStreamingSinkReadsAFullWriteChunkByChunk(t *testing.T) {
	e := newEnv(t, "good")
	e.b.stores["good"].StreamRows(true)
	c := newChunked(t, e, "good")
	e.start(withLoader(c))
	rows := manyRows(2500, "1")
	ev := c.publish(t, 1, rows, true)
	waitFor(t, "revision 1 in the sink", func() bool { return e.stored("good") == 1 })
	e.expectRows("good", 1, rows)
	ws := e.b.stores["good"].Writes()
	if len(ws) != 1 || !ws[0].Streamed {
		t.Fatalf("writes %+v, want one that read the rows as a stream", ws)
	}
	misses, hits := c.l.ChunkMisses.Load(), c.l.ChunkHits.Load()
	if misses < 3 || hits != 0 {
		t.Fatalf("the streamed write read %d chunks from the bus and %d from the cache, want every chunk from the bus", misses, hits)
	}
	if _, err := c.l.Envelope(context.Background(), &ev); err != nil {
		t.Fatal(err)
	}
	if got := c.l.ChunkHits.Load(); got != 0 {
		t.Errorf("reading the revision again found %d of its chunks in the cache: the streamed write filled it", got)
	}
}

// TestAStreamingSinkIsRepairedFromAStream checks that a drift repair of a
// sink.RowStreamer reads the rows as a stream too.
func TestAStreamingSinkIsRepairedFromAStream(t *testing.T) {
	e := newEnv(t, "good")
	e.b.stores["good"].StreamRows(true)
	e.start(func(*exporter.Config) {})
	e.publish(1, busv1.ReasonChange, []string{"good"}, "a", "b", "c")
	waitFor(t, "revision 1 reported", func() bool { s := e.status("good"); return s != nil && s.Revision == 1 })
	waitFor(t, "revision 1 acknowledged", func() bool { return e.ackPending() == 0 }) // as deliveredThenDamaged
	e.b.stores["good"].Edit("east", inv, func(s *memory.Stored) { s.Rows = s.Rows[:2] })
	e.publish(1, busv1.ReasonPeriodic, []string{"good"}, "a", "b", "c")
	waitFor(t, "the repair reported", func() bool { s := e.status("good"); return s != nil && s.Repaired != "" })
	if got, _ := e.b.stores["good"].Get("east", inv); len(got.Rows) != 3 {
		t.Fatalf("the store holds %d rows after the repair, want 3", len(got.Rows))
	}
	ws := e.b.stores["good"].Writes()
	if last := ws[len(ws)-1]; len(ws) != 2 || !last.Repair || !last.Streamed {
		t.Fatalf("store writes %+v, want the first write and a streamed repair", ws)
	}
}
