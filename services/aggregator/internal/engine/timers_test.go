package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

func TestTimersReturnWhatIsDueEarliestFirst(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	tm := newTimers()
	tm.set(key("a", "late"), at(30))
	tm.set(key("a", "soon"), at(10))
	tm.set(key("a", "moved"), at(5))
	tm.set(key("a", "moved"), at(20)) // rescheduled: only the new time counts
	tm.set(key("a", "gone"), at(1))
	tm.remove(key("a", "gone"))
	if next, ok := tm.next(); !ok || !next.Equal(at(10)) {
		t.Fatalf("next = %v, %t; want %v", next, ok, at(10))
	}
	got := tm.due(at(20))
	want := []busv1.NamespacedName{key("a", "soon"), key("a", "moved")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("due (-want +got):\n%s", diff)
	}
	if got := tm.due(at(20)); len(got) != 0 {
		t.Errorf("due again = %v; what was due is unscheduled", got)
	}
	if next, _ := tm.next(); !next.Equal(at(30)) {
		t.Errorf("next = %v, want %v", next, at(30))
	}
}

func TestAnInventoryWakesForItsCheckOrItsPeriodicEvents(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := &busv1.InventoryConfig{Bindings: []busv1.Binding{binding("a", time.Hour), binding("b", time.Minute)}}
	suspended := &busv1.InventoryConfig{Suspend: true, Bindings: cfg.Bindings}
	due := map[busv1.SinkRef]time.Time{binding("a", 0).SinkRef: t0.Add(time.Hour), binding("b", 0).SinkRef: t0.Add(time.Minute)}
	cases := []struct {
		name   string
		st     invState
		want   time.Time
		wantOK bool
	}{
		{"a settling inventory wakes for its check, not its periodic events",
			invState{phase: settling, cfg: cfg, settleAt: t0.Add(time.Second), due: due, last: published{revision: 1}}, t0.Add(time.Second), true},
		{"an idle published inventory wakes for its earliest periodic event",
			invState{phase: idle, cfg: cfg, due: due, last: published{revision: 1}}, t0.Add(time.Minute), true},
		{"an idle inventory that never published does not wake",
			invState{phase: idle, cfg: cfg, due: due}, time.Time{}, false},
		{"a suspended inventory does not wake",
			invState{phase: idle, cfg: suspended, due: due, last: published{revision: 1}}, time.Time{}, false},
		{"a loading inventory before the rebuild's end has no check yet",
			invState{phase: loading, cfg: cfg}, time.Time{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := c.st.wakeAt()
			if ok != c.wantOK || !got.Equal(c.want) {
				t.Errorf("wakeAt = %v, %t; want %v, %t", got, ok, c.want, c.wantOK)
			}
		})
	}
}

// BenchmarkLoopTurn measures one turn of the engine's loop among n idle
// inventories: a row change marks one inventory dirty, the loop asks for its
// next wake-up, and the inventory settles. Its cost must not grow with n
// (the loop scanned every inventory and binding before the timer queue).
func BenchmarkLoopTurn(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("inventories=%d", n), func(b *testing.B) {
			clock := newFakeClock()
			e := &Engine{opts: Options{Settle: time.Second}, clock: clock, ready: true,
				invs: map[busv1.NamespacedName]*invState{}, timers: newTimers()}
			now := clock.Now()
			names := make([]busv1.NamespacedName, n)
			for i := range n {
				st := &invState{name: key("ns", fmt.Sprintf("inv-%05d", i)), phase: idle, last: published{revision: 1},
					cfg: &busv1.InventoryConfig{Bindings: []busv1.Binding{binding("kafka", time.Hour), binding("git", 2*time.Hour)}}}
				st.scheduleAll(now.Add(time.Duration(i) * time.Millisecond))
				e.invs[st.name], names[i] = st, st.name
				e.schedule(st)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				st := e.invs[names[i%n]]
				e.markDirty(st)
				if _, ok := e.nextWake(); !ok {
					b.Fatal("no wake-up scheduled")
				}
				st.phase, st.settleAt = idle, time.Time{}
				e.schedule(st)
			}
		})
	}
}

// TestWhatIsDueIsServedRoundRobinAcrossNamespaces: a flooding namespace's
// hundred inventories due before another namespace's one delay it by one
// turn, and each namespace keeps its own earliest-first order.
func TestWhatIsDueIsServedRoundRobinAcrossNamespaces(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tm := newTimers()
	for i := range 100 {
		tm.set(key("flood", fmt.Sprintf("inv-%03d", i)), t0.Add(time.Duration(i)*time.Millisecond))
	}
	tm.set(key("steady", "inv"), t0.Add(time.Second))
	tm.set(key("other", "a"), t0.Add(2*time.Second))
	tm.set(key("other", "b"), t0.Add(3*time.Second))
	got := tm.due(t0.Add(time.Minute))
	if len(got) != 103 {
		t.Fatalf("%d due, want 103", len(got))
	}
	want := []busv1.NamespacedName{key("flood", "inv-000"), key("steady", "inv"), key("other", "a"),
		key("flood", "inv-001"), key("other", "b"), key("flood", "inv-002"), key("flood", "inv-003")}
	if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
		t.Errorf("first turns (-want +got):\n%s", diff)
	}
	if got[len(got)-1] != key("flood", "inv-099") {
		t.Errorf("last = %v, want the flood's latest", got[len(got)-1])
	}
}
