package exporter_test

import (
	"slices"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// replayOf returns ev re-addressed to sink s as a replay, without its delta.
func replayOf(ev busv1.SnapshotEvent, s string) busv1.SnapshotEvent {
	ev.Delta, ev.Bindings = nil, []busv1.Binding{binding(s)}
	ev.Replay = &busv1.Replay{RequestedAt: time.Now(), RequestedBy: "test"}
	return ev
}

func TestAReplayWritesAnOldRevisionToOneSinkAndTheNextChangeRestoresTheNewest(t *testing.T) {
	e := newEnv(t, "one", "two")
	e.start(nil)
	both := []string{"one", "two"}
	old := e.publish(1, busv1.ReasonChange, both, "a")
	waitFor(t, "revision 1 in both sinks", func() bool { return e.stored("one") == 1 && e.stored("two") == 1 })
	e.publish(2, busv1.ReasonChange, both, "a", "b")
	waitFor(t, "revision 2 in both sinks", func() bool { return e.stored("one") == 2 && e.stored("two") == 2 })
	waitFor(t, "revision 2 acknowledged", func() bool { return e.ackPending() == 0 })

	e.send(replayOf(old, "one"))
	waitFor(t, "revision 1 replayed to sink one", func() bool { return e.stored("one") == 1 })
	waitFor(t, "the replay acknowledged", func() bool { return e.ackPending() == 0 })
	if got := e.b.callsOf("two"); !slices.Equal(got, []uint64{1, 2}) {
		t.Fatalf("sink two writes %v, want [1 2]: the replay reached another binding", got)
	}
	st := e.state("one")
	if st.Revision != 2 || st.Replayed == nil || st.Replayed.Revision != 1 || st.Replayed.Checksum != old.Checksum {
		t.Fatalf("export state after replay %+v (replayed %+v), want revision 2 with replayed revision 1", st, st.Replayed)
	}

	// A periodic re-export of the current revision rewrites the sink.
	e.publish(2, busv1.ReasonPeriodic, []string{"one"}, "a", "b")
	waitFor(t, "revision 2 restored in sink one", func() bool { return e.stored("one") == 2 })
	waitFor(t, "the periodic event acknowledged", func() bool { return e.ackPending() == 0 })
	if st := e.state("one"); st.Revision != 2 || st.Replayed != nil {
		t.Fatalf("export state after the periodic re-export %+v, want revision 2 and no replay", st)
	}

	// After another replay, the next material change is applied normally.
	e.send(replayOf(old, "one"))
	waitFor(t, "revision 1 replayed again", func() bool { return e.stored("one") == 1 })
	e.publish(3, busv1.ReasonChange, both, "a", "b", "c")
	waitFor(t, "revision 3 in both sinks", func() bool { return e.stored("one") == 3 && e.stored("two") == 3 })
	waitFor(t, "everything acknowledged", func() bool { return e.ackPending() == 0 })
	if got := e.b.callsOf("one"); !slices.Equal(got, []uint64{1, 2, 1, 2, 1, 3}) {
		t.Fatalf("sink one writes %v, want [1 2 1 2 1 3]", got)
	}
	if got := e.b.callsOf("two"); !slices.Equal(got, []uint64{1, 2, 3}) {
		t.Fatalf("sink two writes %v, want [1 2 3]", got)
	}
	if st := e.state("one"); st.Revision != 3 || st.Replayed != nil {
		t.Fatalf("export state after revision 3 %+v, want revision 3 and no replay", st)
	}
}

func TestARepeatedRegularEventAfterAReplayIsNotSkipped(t *testing.T) {
	e := newEnv(t, "one")
	e.start(nil)
	old := e.publish(1, busv1.ReasonChange, []string{"one"}, "a")
	waitFor(t, "revision 1", func() bool { return e.stored("one") == 1 })
	cur := e.publish(2, busv1.ReasonChange, []string{"one"}, "b")
	waitFor(t, "revision 2", func() bool { return e.stored("one") == 2 })
	waitFor(t, "revision 2 acknowledged", func() bool { return e.ackPending() == 0 })
	e.send(replayOf(old, "one"))
	waitFor(t, "revision 1 replayed", func() bool { return e.stored("one") == 1 })
	waitFor(t, "the replay acknowledged", func() bool { return e.ackPending() == 0 })
	// An older regular event is still never applied.
	e.publish(1, busv1.ReasonPeriodic, []string{"one"}, "a")
	cur.CreatedAt = time.Now()
	e.send(cur)
	waitFor(t, "revision 2 restored", func() bool { return e.stored("one") == 2 })
	waitFor(t, "everything acknowledged", func() bool { return e.ackPending() == 0 })
	if got := e.b.callsOf("one"); !slices.Equal(got, []uint64{1, 2, 1, 2}) {
		t.Fatalf("writes %v, want [1 2 1 2]: a regular revision 1 was applied or revision 2 was not rewritten", got)
	}
}
