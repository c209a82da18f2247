package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
)

// putExportState records that sink delivered revision rev of inv, as an
// exporter does.
func (b *bed) putExportState(inv busv1.NamespacedName, sink busv1.SinkRef, rev uint64) {
	b.t.Helper()
	kv, err := b.js.KeyValue(context.Background(), bus.BucketExportState)
	if err != nil {
		b.t.Fatal(err)
	}
	data, err := json.Marshal(busv1.ExportState{Inventory: inv, Sink: sink, Checksum: "old", Revision: rev, ExportedAt: time.Now()})
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := kv.Put(context.Background(), bus.ExportStateKey(inv, sink), data); err != nil {
		b.t.Fatal(err)
	}
}

func lastRevision(t *testing.T, evs []history.Stored) uint64 {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("no event")
	}
	return evs[len(evs)-1].Event.Revision
}

// H1: the revision lives in the snapshot subject, whose history has a
// maximum age. When it is gone, the sequence must continue above what the
// sinks hold, or every sink would skip the next revisions as older.
func TestRevisionsContinueAboveWhatSinksHold(t *testing.T) {
	t.Run("a subject without history starts above the export state", func(t *testing.T) {
		b := newBed(t, nil)
		inv := nsInventory("team-a", "inv", binding("kafka", time.Hour))
		b.putInventory(inv)
		b.putExportState(key("team-a", "inv"), inv.Bindings[0].SinkRef, 5)
		b.putRow(mkRow("team-a", "web", "u1", 1))
		e := b.start(Options{Settle: 5 * time.Millisecond})
		waitFor(t, "the first snapshot", func() bool { return e.events.Load() == 1 })
		if got := lastRevision(t, b.history(key("team-a", "inv"))); got != 6 {
			t.Fatalf("revision %d after a sink held 5, want 6", got)
		}
	})
	t.Run("a restart after the history was purged does not start again at 1", func(t *testing.T) {
		b := newBed(t, nil)
		inv := nsInventory("team-a", "inv", binding("kafka", time.Hour))
		b.putInventory(inv)
		b.putRow(mkRow("team-a", "web", "u1", 1))
		opts := Options{Settle: 5 * time.Millisecond}
		e, stop := b.startStoppable(opts)
		waitFor(t, "the first snapshot", func() bool { return e.events.Load() == 1 })
		b.putRow(mkRow("team-a", "web", "u1", 2))
		waitFor(t, "the change", func() bool { return e.events.Load() == 2 })
		stop()
		b.putExportState(key("team-a", "inv"), inv.Bindings[0].SinkRef, 2) // the exporter delivered revision 2
		s, err := b.js.Stream(context.Background(), bus.StreamSnapshots)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Purge(context.Background()); err != nil { // as max age would
			t.Fatal(err)
		}
		e2 := b.start(opts)
		waitFor(t, "the snapshot published again", func() bool { return e2.events.Load() == 1 })
		if got := lastRevision(t, b.history(key("team-a", "inv"))); got != 3 {
			t.Fatalf("revision %d after the sinks held 2, want 3", got)
		}
	})
}
