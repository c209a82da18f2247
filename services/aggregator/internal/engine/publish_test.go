package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/snapshot"
)

func TestAnEmptyInventoryPublishesAnEmptySnapshotThenABurstPublishesOnce(t *testing.T) {
	b := newBed(t, nil)
	clock := newFakeClock()
	inv := nsInventory("team-a", "inv", binding("kafka", 0))
	b.putInventory(inv)
	e := b.start(Options{Settle: 250 * time.Millisecond, Clock: clock})
	waitFor(t, "the empty snapshot", func() bool { return e.events.Load() == 1 })
	first := b.history(key("team-a", "inv"))[0].Event
	if first.Revision != 1 || first.ItemCount != 0 || first.Envelope == nil || first.Envelope.Items == nil ||
		first.Reason != busv1.ReasonChange || first.Delta != nil {
		t.Fatalf("first event = %+v", first)
	}
	if empty, _ := snapshot.Checksum(nil); first.Checksum != empty {
		t.Errorf("empty checksum %s, want %s", first.Checksum, empty)
	}

	var last uint64
	for i := range 200 {
		last = b.putRow(mkRow("team-a", "web", rowName(i), i))
	}
	b.putRow(mkRow("team-b", "web", "elsewhere", 1))
	last = b.putRow(mkRow("", "web", "cluster", 1)) // a ClusterTarget named like the Target
	waitFor(t, "every row applied", func() bool { return e.rowsRev.Load() >= last })
	if n := e.events.Load(); n != 1 {
		t.Fatalf("published %d events before the settle window ended, want 1", n)
	}
	clock.Advance(250 * time.Millisecond)
	waitFor(t, "the burst's snapshot", func() bool { return e.events.Load() == 2 })
	evs := b.history(key("team-a", "inv"))
	if len(evs) != 2 {
		t.Fatalf("history holds %d events, want 2", len(evs))
	}
	ev := evs[1].Event
	if ev.Revision != 2 || ev.ItemCount != 200 || len(ev.Delta.Upserts) != 200 || ev.Delta.BaseRevision != 1 {
		t.Fatalf("burst event: revision %d, %d items, delta %d upserts from %d", ev.Revision, ev.ItemCount,
			len(ev.Delta.Upserts), ev.Delta.BaseRevision)
	}
	for _, r := range ev.Envelope.Items {
		if r.TargetNamespace != "team-a" {
			t.Fatalf("row %+v of another namespace or of a ClusterTarget reached the inventory", r)
		}
	}
	if sum, _ := snapshot.Checksum(ev.Envelope.Items); sum != ev.Checksum || ev.Envelope.Checksum != sum {
		t.Errorf("event checksum %s, envelope %s, items hash to %s", ev.Checksum, ev.Envelope.Checksum, sum)
	}
}

// TestUnchangedSnapshotsArePublishedPerBindingAtItsInterval also proves
// that periodic events do not amplify (F1 of SECURITY-3): none repeats the
// inline envelope, all reference one envelope object stored once, and a
// binding's periodic event supersedes its previous one, so the subject
// holds the change event and one periodic event per binding.
func TestUnchangedSnapshotsArePublishedPerBindingAtItsInterval(t *testing.T) {
	ctx := context.Background()
	b := newBed(t, nil)
	clock := newFakeClock()
	fast, slow := binding("fast", 10*time.Second), binding("slow", 25*time.Second)
	b.putInventory(nsInventory("team-a", "inv", fast, slow))
	b.putRow(mkRow("team-a", "web", "u1", strings.Repeat("x", 32<<10)))
	e := b.start(Options{Settle: time.Second, Clock: clock})
	waitFor(t, "the first snapshot", func() bool { return e.events.Load() == 1 })
	first := b.history(key("team-a", "inv"))[0].Event
	if first.Envelope == nil {
		t.Fatalf("the change event does not carry its envelope inline: %+v", first)
	}

	steps := []struct {
		advance time.Duration
		want    string
	}{{10 * time.Second, "fast"}, {10 * time.Second, "fast"}, {5 * time.Second, "slow"}, {10 * time.Second, "fast"}}
	var refs []string
	for i, s := range steps {
		clock.Advance(s.advance)
		waitFor(t, "a periodic event", func() bool { return e.events.Load() == int64(i+2) })
		last, err := history.Last(ctx, b.js, key("team-a", "inv"))
		if err != nil {
			t.Fatal(err)
		}
		ev := last.Event
		if ev.Reason != busv1.ReasonPeriodic || ev.Revision != 1 || len(ev.Bindings) != 1 || ev.Bindings[0].Name != s.want {
			t.Fatalf("step %d: periodic event = %+v, want one to %s", i, ev, s.want)
		}
		if ev.Envelope != nil || ev.EnvelopeRef == nil {
			t.Fatalf("step %d: a periodic event repeats the envelope inline instead of referencing it: %+v", i, ev)
		}
		env, err := history.Envelope(ctx, b.js, &ev)
		if err != nil || env.Checksum != first.Checksum || len(env.Items) != 1 {
			t.Fatalf("step %d: the periodic event's envelope = %+v, %v", i, env, err)
		}
		refs = append(refs, ev.EnvelopeRef.Name)
	}
	for _, r := range refs[1:] {
		if r != refs[0] {
			t.Errorf("periodic events reference envelopes %v, want one object", refs)
		}
	}
	var got []string
	for _, s := range b.history(key("team-a", "inv"))[1:] {
		got = append(got, s.Event.Bindings[0].Name)
	}
	if diff := cmp.Diff([]string{"slow", "fast"}, got); diff != "" {
		t.Errorf("periodic events kept, by binding (-want +got):\n%s", diff)
	}
}

// TestPeriodicEventsNeverComeFasterThanTheOperatorFloor puts a binding
// config asking for 1ms on the bus, as a config written with admission off
// or before the floor existed would: the engine, on the wall clock,
// publishes its periodic events no more often than Options.MinExportInterval.
// A binding at 0 (on-change exports only) still gets no periodic events.
func TestPeriodicEventsNeverComeFasterThanTheOperatorFloor(t *testing.T) {
	const floor = 200 * time.Millisecond
	const periodics = 4
	b := newBed(t, nil)
	b.putInventory(nsInventory("team-a", "inv", binding("greedy", time.Millisecond), binding("onchange", 0)))
	b.putRow(mkRow("team-a", "web", "u1", 1))
	e, stop := b.startStoppable(Options{Settle: 10 * time.Millisecond, MinExportInterval: floor})
	waitFor(t, "the first snapshot and periodic events", func() bool { return e.events.Load() >= 1+periodics })
	stop() // the history is read whole, not while it grows

	evs := b.history(key("team-a", "inv"))
	first, periodic := evs[0].Event, evs[1:]
	if first.Reason == busv1.ReasonPeriodic {
		t.Fatalf("first event is periodic: %+v", first)
	}
	last := first.CreatedAt
	for i, s := range periodic {
		ev := s.Event
		if ev.Reason != busv1.ReasonPeriodic || len(ev.Bindings) != 1 || ev.Bindings[0].Name != "greedy" {
			t.Fatalf("event %d: reason %s, bindings %+v; want periodic events of greedy only", i+1, ev.Reason, ev.Bindings)
		}
		if gap := ev.CreatedAt.Sub(last); gap < floor {
			t.Errorf("periodic event %d came %v after the previous event, want at least the floor %v", i+1, gap, floor)
		}
		last = ev.CreatedAt
	}
	window := last.Sub(first.CreatedAt)
	if limit := int(window / floor); len(periodic) > limit {
		t.Errorf("%d periodic events in %v, want at most %d (one per %v)", len(periodic), window, limit, floor)
	}
}
