package engine

import (
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
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
