package exporter_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter"
)

// backfillOf returns ev re-addressed to sink s as a revision of backfill
// uid.
func backfillOf(ev busv1.SnapshotEvent, s, uid string, first bool) busv1.SnapshotEvent {
	ev = replayOf(ev, s)
	ev.Replay.UID, ev.Replay.Backfill, ev.Replay.First = uid, true, first
	return ev
}

// hold sets (until expires) or clears (zero expires) a backfill's hold on
// sink s's export state, keeping the rest, as the aggregator does.
func (e *env) hold(s, uid string, expires time.Time) {
	e.t.Helper()
	st := e.state(s)
	st.Hold = nil
	if !expires.IsZero() {
		st.Hold = &busv1.ExportHold{Replay: busv1.NamespacedName{Namespace: "team-a", Name: "fill"}, UID: uid, Expires: expires}
	}
	e.putState(s, st)
}

func (b *memBackend) startsOf(name string) []uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]uint64(nil), b.starts[name]...)
}

func TestAHeldBindingDefersARegularEventAndWritesTheHoldsBackfillUntilTheHoldIsCleared(t *testing.T) {
	e := newEnv(t, "good")
	e.start(nil)
	ev1 := e.publish(1, busv1.ReasonChange, []string{"good"}, "a")
	ev2 := e.event(2, busv1.ReasonChange, []string{"good"}, "a", "b")
	waitFor(t, "revision 1 written", func() bool { return e.stored("good") == 1 })
	waitFor(t, "revision 1 acknowledged", func() bool { return e.ackPending() == 0 })
	e.hold("good", "uid-a", time.Now().Add(time.Hour))

	e.publish(3, busv1.ReasonChange, []string{"good"}, "a", "b", "c")
	waitFor(t, "revision 3 waiting on the hold", func() bool { return e.ackPending() == 1 })
	if got := e.b.callsOf("good"); !slices.Equal(got, []uint64{1}) {
		t.Fatalf("writes %v, want [1]: revision 3 was written although the binding is held", got)
	}
	for i, ev := range []busv1.SnapshotEvent{backfillOf(ev1, "good", "uid-a", true), backfillOf(ev2, "good", "uid-a", false)} {
		e.send(ev)
		waitFor(t, "the backfill's revision recorded", func() bool {
			st := e.state("good")
			return st.Replayed != nil && st.Replayed.Revision == ev.Revision && st.Claim == nil
		})
		if st := e.state("good"); st.Hold == nil || st.Hold.UID != "uid-a" {
			t.Fatalf("after the backfill's revision %d the state's hold is %+v, want uid-a's kept", i+1, st.Hold)
		}
	}
	// A replay of another backfill waits like a regular event.
	e.send(backfillOf(ev1, "good", "uid-b", true))
	waitFor(t, "the other backfill's revision waiting too", func() bool { return e.ackPending() == 2 })
	if got := e.b.callsOf("good"); !slices.Equal(got, []uint64{1, 1, 2}) {
		t.Fatalf("writes while held %v, want [1 1 2]: only the hold's backfill goes through", got)
	}
	if got := e.b.startsOf("good"); !slices.Equal(got, []uint64{1}) {
		t.Fatalf("BackfillStart on revisions %v, want [1]", got)
	}
	if e.ackPending() == 0 {
		t.Fatal("the deferred events were acknowledged while the binding was held")
	}

	e.hold("good", "", time.Time{})
	waitFor(t, "everything acknowledged after the hold is cleared", func() bool { return e.ackPending() == 0 })
	calls := e.b.callsOf("good")
	if !slices.Contains(calls[3:], 3) {
		t.Fatalf("writes %v: revision 3 was not written after the hold was cleared", calls)
	}
	waitFor(t, "revision 3 recorded", func() bool { st := e.state("good"); return st.Revision == 3 && st.Claim == nil })
}

func TestAnExpiredHoldIsIgnored(t *testing.T) {
	e := newEnv(t, "good")
	e.start(nil)
	e.publish(1, busv1.ReasonChange, []string{"good"}, "a")
	waitFor(t, "revision 1 acknowledged", func() bool { return e.stored("good") == 1 && e.ackPending() == 0 })
	e.hold("good", "uid-a", time.Now().Add(-time.Second))
	e.publish(2, busv1.ReasonChange, []string{"good"}, "a", "b")
	waitFor(t, "revision 2 written despite the expired hold", func() bool { return e.stored("good") == 2 && e.ackPending() == 0 })
}

// casState updates sink s's export state with compare-and-set, as the
// aggregator renews its hold: mod changes the state read.
func (e *env) casState(s string, mod func(*busv1.ExportState)) {
	e.t.Helper()
	kv, err := e.n.JS.KeyValue(context.Background(), bus.BucketExportState)
	if err != nil {
		e.t.Fatal(err)
	}
	st, rev := e.stateAt(s)
	mod(&st)
	b, _ := json.Marshal(st)
	if _, err := kv.Update(context.Background(), bus.ExportStateKey(inv, ref(s)), b, rev); err != nil {
		e.t.Fatal(err)
	}
}

// TestAHoldRenewedDuringAWriteKeepsTheWritersClaimAndIsKept renews the
// hold (compare-and-set, keeping the claim, as the aggregator does) while
// the hold's replay is being written: with a short claim TTL the writer's
// claim renewal meets the change, with a long one the recording of the
// replay does. Either keeps the claim, writes once and keeps the hold.
func TestAHoldRenewedDuringAWriteKeepsTheWritersClaimAndIsKept(t *testing.T) {
	for _, ttl := range []time.Duration{600 * time.Millisecond, time.Minute} {
		t.Run(ttl.String(), func(t *testing.T) { holdRenewedDuringAWrite(t, ttl) })
	}
}

func holdRenewedDuringAWrite(t *testing.T, ttl time.Duration) {
	e := newEnv(t, "good")
	e.start(func(c *exporter.Config) { c.ClaimTTL = ttl })
	ev1 := e.publish(1, busv1.ReasonChange, []string{"good"}, "a")
	waitFor(t, "revision 1 acknowledged", func() bool { return e.stored("good") == 1 && e.ackPending() == 0 })
	e.hold("good", "uid-a", time.Now().Add(time.Hour))
	g := e.b.block("good")
	e.send(backfillOf(ev1, "good", "uid-a", true))
	<-g.entered
	renewed := time.Now().Add(2 * time.Hour).UTC().Truncate(time.Millisecond)
	var claimed time.Time
	e.casState("good", func(st *busv1.ExportState) {
		if st.Claim == nil {
			t.Fatalf("the state during the write has no claim: %+v", st)
		}
		claimed = st.Claim.Expires
		st.Hold.Expires = renewed
	})
	if ttl < time.Second {
		waitFor(t, "the writer's claim renewed after the hold was", func() bool {
			st := e.state("good")
			return st.Claim != nil && st.Claim.Expires.After(claimed) && st.Hold != nil && st.Hold.Expires.Equal(renewed)
		})
	}
	close(g.open)
	waitFor(t, "the replay recorded", func() bool {
		st := e.state("good")
		return st.Replayed != nil && st.Replayed.Revision == 1 && st.Claim == nil
	})
	if st := e.state("good"); st.Hold == nil || !st.Hold.Expires.Equal(renewed) {
		t.Fatalf("the recorded state's hold is %+v, want the renewed one kept", st.Hold)
	}
	if got := e.b.callsOf("good"); !slices.Equal(got, []uint64{1, 1}) {
		t.Fatalf("writes %v, want [1 1]: the renewed hold cost the writer its claim", got)
	}
}
