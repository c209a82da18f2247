package exporter_test

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/memory"
)

// withLoader runs the exporter reading through c's Loader.
func withLoader(c *chunked) func(*exporter.Config) {
	return func(cfg *exporter.Config) { cfg.Loader = c.l }
}

// expectRows fails unless sink s holds revision rev with exactly rows.
func (e *env) expectRows(s string, rev uint64, rows []busv1.Row) {
	e.t.Helper()
	got, _ := e.b.stores[s].Get("east", inv)
	want := slices.Clone(rows)
	slices.SortFunc(want, busv1.CompareRows)
	if got.Revision != rev || len(got.Rows) != len(want) {
		e.t.Fatalf("the sink holds revision %d with %d rows, want %d with %d", got.Revision, len(got.Rows), rev, len(want))
	}
	if d := cmp.Diff(want, got.Rows); d != "" {
		e.t.Fatalf("rows (-want +got):\n%s", d)
	}
}

// writesAfter returns the writes the store applied after revision rev.
func writesAfter(st *memory.Store, rev uint64) []memory.Write {
	return slices.DeleteFunc(st.Writes(), func(w memory.Write) bool { return w.Revision <= rev })
}

func TestAOneRowDeltaIsWrittenWithoutReadingTheSnapshot(t *testing.T) {
	e := newEnv(t, "good")
	c := newChunked(t, e, "good")
	e.start(withLoader(c))
	base := manyRows(2500, "1")
	c.publish(t, 1, base, true)
	waitFor(t, "revision 1 in the sink", func() bool { return e.stored("good") == 1 })
	read, misses, hits := c.l.BytesRead.Load(), c.l.ChunkMisses.Load(), c.l.ChunkHits.Load()
	if read == 0 || misses == 0 {
		t.Fatalf("the first, full, write read %d bytes in %d chunks: it did not read the manifest", read, misses)
	}
	next := set(base, vrow("r-001234", "2"))
	c.publish(t, 2, next, false)
	waitFor(t, "revision 2 in the sink", func() bool { return e.stored("good") == 2 })
	e.expectRows("good", 2, next)
	if n, m, h := c.l.BytesRead.Load()-read, c.l.ChunkMisses.Load()-misses, c.l.ChunkHits.Load()-hits; n != 0 || m != 0 || h != 0 {
		t.Fatalf("applying a one-row delta read %d bytes and %d chunks (%d cached), want none", n, m+h, h)
	}
	ds := e.b.deltasOf("good")
	if len(ds) != 1 {
		t.Fatalf("%d WriteDelta calls, want 1", len(ds))
	}
	s := ds[0]
	if s.Envelope.Items != nil || s.Loaded() || s.Envelope.ItemCount != 2500 || s.Envelope.Revision != 2 || s.Envelope.Cluster != "east" ||
		len(s.Delta.Upserts) != 1 || len(s.Delta.Deletes) != 0 {
		t.Fatalf("WriteDelta got %d items (loaded %t), item count %d, revision %d, cluster %q, %d upserts and %d deletes; "+
			"want a header of 2500 items at revision 2 for east and one upsert", len(s.Envelope.Items), s.Loaded(), s.Envelope.ItemCount,
			s.Envelope.Revision, s.Envelope.Cluster, len(s.Delta.Upserts), len(s.Delta.Deletes))
	}
	if w := writesAfter(e.b.stores["good"], 1); len(w) != 1 || !w[0].Delta {
		t.Fatalf("writes after revision 1: %+v, want one delta", w)
	}
	waitFor(t, "both messages acknowledged", func() bool { return e.ackPending() == 0 })
}

func TestASinkNotAtTheDeltasBaseGetsTheFullSnapshotFromTheManifest(t *testing.T) {
	for _, tc := range []struct {
		name string
		// prepare brings the binding to the state before revision 2.
		prepare func(t *testing.T, e *env, c *chunked, base []busv1.Row)
		// write is the call the full snapshot must arrive through.
		write string
	}{
		{"an export state on another revision gets Write", func(t *testing.T, e *env, c *chunked, base []busv1.Row) {
			c.event(t, 1, base, true) // revision 1 is never delivered
		}, "Write"},
		{"a sink that lost its data loads the snapshot in WriteDelta", func(t *testing.T, e *env, c *chunked, base []busv1.Row) {
			c.publish(t, 1, base, true)
			waitFor(t, "revision 1 in the sink", func() bool { return e.stored("good") == 1 })
			e.b.stores["good"].Drop("east", inv)
		}, "WriteDelta"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "good")
			c := newChunked(t, e, "good")
			e.start(withLoader(c))
			base := manyRows(2100, "1")
			tc.prepare(t, e, c, base)
			next := without(set(base, vrow("new", "2")), "r-000007")
			c.publish(t, 2, next, false)
			waitFor(t, "revision 2 in the sink", func() bool { return e.stored("good") == 2 })
			e.expectRows("good", 2, next)
			w := writesAfter(e.b.stores["good"], 1)
			if len(w) != 1 || w[0].Delta {
				t.Fatalf("writes after revision 1: %+v, want one full write", w)
			}
			wrote := slices.Contains(e.b.callsOf("good"), 2)
			if delta := len(e.b.deltasOf("good")) > 0; wrote == delta || (tc.write == "Write") != wrote {
				t.Fatalf("Write called for revision 2: %t, WriteDelta: %t; want the snapshot through %s", wrote, delta, tc.write)
			}
			waitFor(t, "every message acknowledged", func() bool { return e.ackPending() == 0 })
		})
	}
}

// burst makes the sink fail, publishes revisions 2..last, each changed by
// change (deltas as objects on even revisions), waits until the runtime
// tries the last, lets the sink recover, and returns the rows of the last
// revision.
func burst(t *testing.T, e *env, c *chunked, base []busv1.Row, last uint64, change func(rows []busv1.Row, rev uint64) []busv1.Row) []busv1.Row {
	t.Helper()
	var tried atomic.Uint64
	e.b.stores["good"].FailWith(func(s sink.Snapshot) error {
		tried.Store(max(tried.Load(), s.Envelope.Revision))
		return errors.New("sink unavailable")
	})
	rows := base
	for rev := uint64(2); rev <= last; rev++ {
		rows = change(rows, rev)
		c.object = rev%2 == 0
		c.publish(t, rev, rows, false)
	}
	waitFor(t, "an attempt at the last revision", func() bool { return tried.Load() == last })
	// The chain keeps the older events' deltas, not their messages: a
	// failing binding holds no more of the consumer's MaxAckPending than
	// before chains existed.
	waitFor(t, "at most two messages unacknowledged while the sink fails", func() bool { return e.ackPending() <= 2 })
	e.b.stores["good"].FailWith(nil)
	waitFor(t, "the last revision in the sink", func() bool { return e.stored("good") == last })
	return rows
}

func TestABurstOfConsecutiveEventsIsOneComposedDelta(t *testing.T) {
	e := newEnv(t, "good")
	c := newChunked(t, e, "good")
	e.start(withLoader(c))
	base := manyRows(2000, "1")
	first := c.publish(t, 1, base, true)
	waitFor(t, "revision 1 in the sink", func() bool { return e.stored("good") == 1 })
	const last = 9
	rows := burst(t, e, c, base, last, func(rows []busv1.Row, rev uint64) []busv1.Row {
		rows = set(rows, vrow(fmt.Sprintf("r-%06d", rev*10), fmt.Sprint(rev)))
		rows = set(rows, vrow(fmt.Sprintf("new-%d", rev), "1"))
		return without(rows, fmt.Sprintf("r-%06d", rev*10+1))
	})
	e.expectRows("good", last, rows)
	if w := writesAfter(e.b.stores["good"], 1); len(w) != 1 || !w[0].Delta || w[0].Revision != last {
		t.Fatalf("writes after revision 1: %+v, want one delta to revision %d", w, last)
	}
	ds := e.b.deltasOf("good")
	got := ds[len(ds)-1]
	want := diffRows(t, &first, base, rows)
	slices.SortFunc(want.Upserts, busv1.CompareRows)
	if d := cmp.Diff(want, got.Delta); d != "" || got.Loaded() {
		t.Fatalf("composed delta (-want +got), loaded %t:\n%s", got.Loaded(), d)
	}
	waitFor(t, "every message acknowledged", func() bool { return e.ackPending() == 0 })
}

func TestACompositionPastItsCapIsAFullWriteOfTheNewest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		last   uint64
		change func(rows []busv1.Row, rev uint64) []busv1.Row
	}{
		{"more events than a chain holds", 70, func(rows []busv1.Row, rev uint64) []busv1.Row {
			return set(rows, vrow("r-000003", fmt.Sprint(rev)))
		}},
		{"more rows than half the snapshot", 4, func(rows []busv1.Row, rev uint64) []busv1.Row {
			for i := range 400 {
				rows = set(rows, vrow(fmt.Sprintf("r-%06d", int(rev)*400+i), fmt.Sprint(rev)))
			}
			return rows
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "good")
			c := newChunked(t, e, "good")
			e.start(withLoader(c))
			base := manyRows(2000, "1")
			c.publish(t, 1, base, true)
			waitFor(t, "revision 1 in the sink", func() bool { return e.stored("good") == 1 })
			rows := burst(t, e, c, base, tc.last, tc.change)
			e.expectRows("good", tc.last, rows)
			if w := writesAfter(e.b.stores["good"], 1); len(w) != 1 || w[0].Delta {
				t.Fatalf("writes after revision 1: %+v, want one full write", w)
			}
			waitFor(t, "every message acknowledged", func() bool { return e.ackPending() == 0 })
		})
	}
}
