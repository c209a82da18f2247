package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/snapshot"
)

func TestARestartContinuesTheRevisionsWithoutRepublishing(t *testing.T) {
	b := newBed(t, nil)
	invs := []busv1.InventoryConfig{nsInventory("team-a", "inv", binding("kafka", time.Hour)), nsInventory("team-b", "inv")}
	for _, inv := range invs {
		b.putInventory(inv)
	}
	b.putRow(mkRow("team-a", "web", "u1", 1))
	b.putRow(mkRow("team-b", "web", "u2", 1))
	opts := Options{Settle: 5 * time.Millisecond}
	e, stop := b.startStoppable(opts)
	waitFor(t, "both snapshots", func() bool { return e.events.Load() == 2 })
	b.putRow(mkRow("team-a", "web", "u1", 2))
	waitFor(t, "the change", func() bool { return e.events.Load() == 3 })
	stop()

	e2 := b.start(opts)
	waitFor(t, "the rebuild's checks", func() bool { return e2.started.Load() && e2.settled.Load() >= 2 })
	if n := e2.events.Load(); n != 0 {
		t.Fatalf("the restarted engine published %d events for unchanged snapshots", n)
	}
	b.putRow(mkRow("team-a", "web", "u3", 1))
	waitFor(t, "the next change", func() bool { return e2.events.Load() == 1 })
	evs := b.history(key("team-a", "inv"))
	ev := evs[len(evs)-1].Event
	if ev.Revision != 3 || ev.Delta == nil || ev.Delta.BaseRevision != 2 || len(ev.Delta.Upserts) != 1 ||
		ev.Delta.Upserts[0].UID != "u3" || len(ev.Delta.Deletes) != 0 {
		t.Fatalf("after the restart: revision %d, delta %+v", ev.Revision, ev.Delta)
	}
	if len(b.history(key("team-b", "inv"))) != 1 {
		t.Error("the unchanged inventory was re-published after the restart")
	}
}

func TestDeletionPolicy(t *testing.T) {
	b := newBed(t, nil)
	retain := nsInventory("team-a", "keep")
	del := nsInventory("team-a", "drop", binding("kafka", time.Hour))
	del.DeletionPolicy = busv1.DeletionDelete
	b.putInventory(retain)
	b.putInventory(del)
	b.putRow(mkRow("team-a", "web", "u1", 1))
	b.putRow(mkRow("team-a", "web", "u2", 1))
	e := b.start(Options{Settle: 5 * time.Millisecond})
	waitFor(t, "both snapshots", func() bool { return e.events.Load() == 2 })

	b.deleteInventory(retain)
	b.deleteInventory(del)
	waitFor(t, "the final snapshot", func() bool { return e.events.Load() == 3 })
	if n := len(b.history(key("team-a", "keep"))); n != 1 {
		t.Errorf("Retain: %d events, want the first one only", n)
	}
	evs := b.history(key("team-a", "drop"))
	ev := evs[len(evs)-1].Event
	if ev.Reason != busv1.ReasonDeleted || ev.DeletionPolicy != busv1.DeletionDelete || ev.Revision != 2 ||
		ev.ItemCount != 0 || ev.Envelope == nil || len(ev.Envelope.Items) != 0 || len(ev.Bindings) != 1 ||
		ev.Delta == nil || len(ev.Delta.Deletes) != 2 {
		t.Fatalf("Delete: final event = %+v", ev)
	}
	// A row change after the deletion publishes nothing more.
	last := b.putRow(mkRow("team-a", "web", "u1", 2))
	waitFor(t, "the row", func() bool { return e.rowsRev.Load() >= last })
	if n := e.events.Load(); n != 3 {
		t.Errorf("%d events after the deletion, want 3", n)
	}
}

func TestALargeSnapshotGoesThroughTheObjectStore(t *testing.T) {
	b := newBed(t, nil)
	b.putInventory(nsInventory("team-a", "big", binding("s3", 0)))
	pad := strings.Repeat("x", 10<<10)
	const n = 2100 // 2100 rows of 10 KiB: over 20 MiB
	for i := range n {
		b.putRow(mkRow("team-a", "web", rowName(i), pad))
	}
	e := b.start(Options{Settle: 5 * time.Millisecond})
	waitFor(t, "the snapshot", func() bool { return e.events.Load() == 1 })
	evs := b.history(key("team-a", "big"))
	ev := evs[0].Event
	if ev.Envelope != nil || ev.ManifestRef == nil {
		t.Fatalf("event holds envelope %v, manifest %+v; want a manifest", ev.Envelope != nil, ev.ManifestRef)
	}
	got, env, err := history.Fetch(context.Background(), b.js, key("team-a", "big"), 1)
	if err != nil {
		t.Fatal(err)
	}
	want, err := snapshot.Checksum(env.Items)
	if err != nil {
		t.Fatal(err)
	}
	if got.Revision != 1 || env.ItemCount != n || len(env.Items) != n || want != ev.Checksum {
		t.Fatalf("fetched revision %d with %d items, checksum %s, want %d items, %s", got.Revision, len(env.Items), want, n, ev.Checksum)
	}
}
