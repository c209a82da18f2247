package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

func TestAReplayOnTheSubjectDoesNotMoveTheRevisionsBack(t *testing.T) {
	b := newBed(t, nil)
	b.putInventory(nsInventory("team-a", "inv", binding("kafka", time.Hour)))
	b.putRow(mkRow("team-a", "web", "u1", 1))
	opts := Options{Settle: 5 * time.Millisecond, RetryBackoff: 5 * time.Millisecond}
	e, stop := b.startStoppable(opts)
	waitFor(t, "revision 1", func() bool { return e.events.Load() == 1 })
	b.putRow(mkRow("team-a", "web", "u1", 2))
	waitFor(t, "revision 2", func() bool { return e.events.Load() == 2 })

	// kollect replay publishes revision 1 again on the subject.
	ev := b.history(key("team-a", "inv"))[0].Event
	ev.Delta, ev.Replay = nil, &busv1.Replay{RequestedAt: time.Now()}
	data, _ := json.Marshal(ev)
	if _, err := b.js.Publish(context.Background(), bus.SnapshotSubject(ev.Inventory), data, jetstream.WithMsgID(bus.ReplayMsgID(ev))); err != nil {
		t.Fatal(err)
	}
	b.putRow(mkRow("team-a", "web", "u2", 1))
	waitFor(t, "revision 3", func() bool { return e.events.Load() == 3 })
	stop()

	// A restarted engine continues after revision 3, not after the replay.
	if _, err := b.js.Publish(context.Background(), bus.SnapshotSubject(ev.Inventory), data, jetstream.WithMsgID(bus.ReplayMsgID(ev)+"x")); err != nil {
		t.Fatal(err)
	}
	e2 := b.start(opts)
	waitFor(t, "the rebuild's check", func() bool { return e2.started.Load() && e2.settled.Load() >= 1 })
	if n := e2.events.Load(); n != 0 {
		t.Fatalf("the restarted engine published %d events for an unchanged snapshot after a replay", n)
	}
	b.putRow(mkRow("team-a", "web", "u3", 1))
	waitFor(t, "revision 4", func() bool { return e2.events.Load() == 1 })

	var revs []uint64
	for _, s := range b.history(key("team-a", "inv")) {
		if s.Event.Replay == nil {
			revs = append(revs, s.Event.Revision)
		}
	}
	if len(revs) != 4 || revs[2] != 3 || revs[3] != 4 {
		t.Fatalf("published revisions %v, want [1 2 3 4]", revs)
	}
	last := b.history(key("team-a", "inv"))
	if d := last[len(last)-1].Event.Delta; d == nil || d.BaseRevision != 3 {
		t.Fatalf("revision 4 delta %+v, want base revision 3", d)
	}
}
