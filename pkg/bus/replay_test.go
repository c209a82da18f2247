package bus

import (
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

func TestReplayMsgIDIsDistinctPerRequestAndFromTheOriginal(t *testing.T) {
	t0 := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	ev := busv1.SnapshotEvent{Inventory: busv1.NamespacedName{Namespace: "team-a", Name: "web"}, Revision: 3, CreatedAt: t0, Reason: busv1.ReasonChange}
	a, b := ev, ev
	a.Replay = &busv1.Replay{RequestedAt: t0.Add(time.Hour)}
	b.Replay = &busv1.Replay{RequestedAt: t0.Add(2 * time.Hour)}
	ids := map[string]bool{SnapshotMsgID(ev): true, ReplayMsgID(a): true, ReplayMsgID(b): true}
	if len(ids) != 3 {
		t.Fatalf("message ids collide: %v", ids)
	}
	if again := ReplayMsgID(a); again != ReplayMsgID(a) {
		t.Fatal("ReplayMsgID is not stable for one request")
	}
}
