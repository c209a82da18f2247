package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
)

// TestStatusReportsTheHistoryKeptAfterTrimming checks that the inventory's
// status report carries, after a trim, the revisions the bus still holds,
// the oldest of them, and the bytes they keep on the bus: the event
// messages as the stream holds them plus the objects they reference as the
// envelope store holds them.
func TestStatusReportsTheHistoryKeptAfterTrimming(t *testing.T) {
	ctx := context.Background()
	b := newBed(t, func(o *bus.Options) { o.SnapshotHistory = 64 })
	clock := newFakeClock()
	inv := nsInventory("team-a", "big")
	inv.History = busv1.HistoryLimits{Revisions: 3}
	opts := Options{Settle: time.Second, Clock: clock, MaxMessageBytes: 8 << 10, GCInterval: time.Hour, HistoryRevisions: 16}
	e := churnInventory(t, b, clock, opts, inv, 4000, 6)
	if n := len(b.history(key("team-a", "big"))); n != 7 {
		t.Fatalf("%d revisions before the trim, want 7", n)
	}
	collectNow(t, e, clock, time.Hour)

	evs := b.history(key("team-a", "big"))
	if diff := cmp.Diff([]uint64{5, 6, 7}, revisions(evs)); diff != "" {
		t.Fatalf("retained revisions (-want +got):\n%s", diff)
	}
	l := history.NewLoader(b.js, -1)
	referenced := map[string]bool{}
	for _, s := range evs {
		ev := s.Event
		for _, ref := range []*busv1.ObjectRef{ev.EnvelopeRef, ev.DeltaRef, ev.ManifestRef} {
			if ref != nil {
				referenced[ref.Name] = true
			}
		}
		if ev.ManifestRef == nil {
			t.Fatalf("revision %d has no manifest: the test wants chunked snapshots", ev.Revision)
		}
		m, err := l.Manifest(ctx, &ev)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Chunks {
			referenced[bus.ChunkObjectNameIn(ev.ManifestRef.Name, c.Digest)] = true
		}
	}
	objects := storeObjects(t, b)
	var bytes int64
	for name := range referenced {
		size, ok := objects[name]
		if !ok {
			t.Fatalf("object %s of a retained revision is not in the store", name)
		}
		bytes += int64(size)
	}
	idx, err := history.Index(ctx, b.js, key("team-a", "big"))
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range idx {
		bytes += int64(en.Bytes)
	}
	want := busv1.HistoryStatus{Revisions: 3, OldestRevision: 5, OldestTime: evs[0].Event.CreatedAt.UTC(), Bytes: bytes}

	subject := bus.StatusSubjectFor(busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindInventory,
		Namespace: "team-a", Name: "big"})
	s, err := b.js.Stream(ctx, bus.StreamStatus)
	if err != nil {
		t.Fatal(err)
	}
	var r busv1.StatusReport
	waitFor(t, "a status report with the trimmed history", func() bool {
		m, err := s.GetLastMsgForSubject(ctx, subject)
		r = busv1.StatusReport{}
		return err == nil && json.Unmarshal(m.Data, &r) == nil && r.Inventory != nil && r.Inventory.History != nil &&
			r.Inventory.History.OldestRevision == 5
	})
	if diff := cmp.Diff(want, *r.Inventory.History); diff != "" {
		t.Errorf("status history (-want +got):\n%s", diff)
	}
}
