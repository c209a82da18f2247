package history_test

import (
	"context"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/testenv"
)

func TestLastPublishedSkipsReplaysButQuotesTheLastSequence(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx := context.Background()
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "inv"}
	if ev, seq, err := history.LastPublished(ctx, n.JS, inv); err != nil || ev != nil || seq != 0 {
		t.Fatalf("empty subject: %v %d %v", ev, seq, err)
	}
	for rev := uint64(1); rev <= 2; rev++ {
		publish(t, n, busv1.SnapshotEvent{Inventory: inv, Revision: rev, Reason: busv1.ReasonChange})
	}
	publish(t, n, busv1.SnapshotEvent{Inventory: inv, Revision: 1, Reason: busv1.ReasonChange, Replay: &busv1.Replay{RequestedAt: time.Now()}})
	ev, seq, err := history.LastPublished(ctx, n.JS, inv)
	if err != nil {
		t.Fatal(err)
	}
	last, err := history.Last(ctx, n.JS, inv)
	if err != nil {
		t.Fatal(err)
	}
	if ev == nil || ev.Event.Revision != 2 || ev.Event.Replay != nil || seq != last.Sequence || ev.Sequence >= seq {
		t.Fatalf("LastPublished = %+v, %d; want revision 2 and the replay's sequence %d", ev, seq, last.Sequence)
	}
}
