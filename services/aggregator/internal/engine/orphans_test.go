package engine

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

func TestAnInventoryDeletedWhileDownGetsItsDeletionOnStart(t *testing.T) {
	b := newBed(t, nil)
	retain := nsInventory("team-a", "keep", binding("kafka", time.Hour))
	del := nsInventory("team-a", "drop", binding("kafka", time.Hour), binding("s3", time.Hour))
	del.DeletionPolicy = busv1.DeletionDelete
	b.putInventory(retain)
	b.putInventory(del)
	b.putRow(mkRow("team-a", "web", "u1", 1))
	opts := Options{Settle: 5 * time.Millisecond}
	e, stop := b.startStoppable(opts)
	waitFor(t, "both snapshots", func() bool { return e.events.Load() == 2 })
	if ev := b.history(key("team-a", "drop"))[0].Event; ev.DeletionPolicy != busv1.DeletionDelete {
		t.Fatalf("change event carries deletion policy %q, want Delete", ev.DeletionPolicy)
	}
	stop()

	b.deleteInventory(retain)
	b.deleteInventory(del)
	e2 := b.start(opts)
	waitFor(t, "the final snapshot", func() bool { return e2.events.Load() == 1 })
	if n := len(b.history(key("team-a", "keep"))); n != 1 {
		t.Errorf("Retain: %d events, want the first one only", n)
	}
	evs := b.history(key("team-a", "drop"))
	ev := evs[len(evs)-1].Event
	if len(evs) != 2 || ev.Reason != busv1.ReasonDeleted || ev.DeletionPolicy != busv1.DeletionDelete || ev.Revision != 2 ||
		ev.ItemCount != 0 || ev.Envelope == nil || len(ev.Envelope.Items) != 0 || len(ev.Bindings) != 2 {
		t.Fatalf("final event = %+v (%d events)", ev, len(evs))
	}

}

// TestADeletionWhileDownReachesEverySinkThatHoldsTheInventory covers M9:
// periodic events carry one binding each and can push the last event
// addressed to every binding out of the history; the final deletion event
// must still reach every sink that holds the inventory.
func TestADeletionWhileDownReachesEverySinkThatHoldsTheInventory(t *testing.T) {
	b := newBed(t, func(o *bus.Options) { o.SnapshotHistory = 4 })
	clock := newFakeClock()
	del := nsInventory("team-a", "drop", binding("kafka", time.Second), binding("s3", time.Second), binding("git", time.Second))
	del.DeletionPolicy = busv1.DeletionDelete
	b.putInventory(del)
	b.putRow(mkRow("team-a", "web", "u1", 1))
	opts := Options{Settle: time.Second, Clock: clock}
	e, stop := b.startStoppable(opts)
	clock.Advance(time.Second)
	waitFor(t, "the first snapshot", func() bool { return e.events.Load() >= 1 })
	// Every sink delivered it, as its exporter records.
	state, err := b.js.KeyValue(context.Background(), bus.BucketExportState)
	if err != nil {
		t.Fatal(err)
	}
	for _, bd := range del.Bindings {
		st, _ := json.Marshal(busv1.ExportState{Inventory: key("team-a", "drop"), Sink: bd.SinkRef, Revision: 1})
		if _, err := state.Put(context.Background(), bus.ExportStateKey(key("team-a", "drop"), bd.SinkRef), st); err != nil {
			t.Fatal(err)
		}
	}
	for range 6 { // periodic events, one binding each, push the change event out
		before := e.events.Load()
		clock.Advance(time.Second)
		waitFor(t, "periodic events", func() bool { return e.events.Load() > before })
	}
	for _, s := range b.history(key("team-a", "drop")) {
		if s.Event.Reason == busv1.ReasonChange {
			t.Fatal("the change event is still in the history; the test needs it gone")
		}
	}
	stop()

	b.deleteInventory(del)
	e2 := b.start(Options{Settle: 5 * time.Millisecond})
	waitFor(t, "the final snapshot", func() bool { return e2.events.Load() == 1 })
	evs := b.history(key("team-a", "drop"))
	ev := evs[len(evs)-1].Event
	var got []string
	for _, bd := range ev.Bindings {
		got = append(got, bd.Name)
	}
	if ev.Reason != busv1.ReasonDeleted || !slices.Equal(got, []string{"git", "kafka", "s3"}) {
		t.Fatalf("final event %s addressed to %v, want deleted to git, kafka and s3", ev.Reason, got)
	}
}
