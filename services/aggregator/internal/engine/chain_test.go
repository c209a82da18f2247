package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
)

// checkLink fails unless ev and its inline envelope carry prev as the
// previous revision's checksum.
func checkLink(t *testing.T, what string, ev busv1.SnapshotEvent, prev string) {
	t.Helper()
	if ev.PreviousChecksum != prev {
		t.Errorf("%s (revision %d): previousChecksum %q, want %q", what, ev.Revision, ev.PreviousChecksum, prev)
	}
	if ev.Envelope != nil && ev.Envelope.PreviousChecksum != prev {
		t.Errorf("%s (revision %d): envelope previousChecksum %q, want %q", what, ev.Revision, ev.Envelope.PreviousChecksum, prev)
	}
}

func TestEachRevisionCarriesThePreviousChecksumAcrossARestart(t *testing.T) {
	b := newBed(t, nil)
	inv := nsInventory("team-a", "inv", binding("kafka", time.Hour))
	inv.DeletionPolicy = busv1.DeletionDelete
	b.putInventory(inv)
	b.putRow(mkRow("team-a", "web", "u1", 1))
	opts := Options{Settle: 5 * time.Millisecond}
	e, stop := b.startStoppable(opts)
	waitFor(t, "the first snapshot", func() bool { return e.events.Load() == 1 })
	b.putRow(mkRow("team-a", "web", "u1", 2))
	waitFor(t, "the change", func() bool { return e.events.Load() == 2 })
	stop()

	e2 := b.start(opts)
	waitFor(t, "the rebuild's check", func() bool { return e2.started.Load() && e2.settled.Load() >= 1 })
	b.putRow(mkRow("team-a", "web", "u2", 1))
	waitFor(t, "the change after the restart", func() bool { return e2.events.Load() == 1 })
	b.deleteInventory(inv)
	waitFor(t, "the deletion", func() bool { return e2.events.Load() == 2 })

	evs := b.history(key("team-a", "inv"))
	if len(evs) != 4 {
		t.Fatalf("history holds %d events, want 4", len(evs))
	}
	checkLink(t, "the first revision", evs[0].Event, "")
	for i, what := range []string{"a change", "the change after the restart", "the deletion"} {
		prev, ev := evs[i].Event, evs[i+1].Event
		if ev.Revision != prev.Revision+1 || ev.Checksum == prev.Checksum {
			t.Fatalf("%s: revision %d checksum %s after revision %d checksum %s", what, ev.Revision, ev.Checksum, prev.Revision, prev.Checksum)
		}
		checkLink(t, what, ev, prev.Checksum)
	}
}

func TestPeriodicEventsRepeatThePreviousChecksumOfTheirRevision(t *testing.T) {
	b := newBed(t, nil)
	clock := newFakeClock()
	b.putInventory(nsInventory("team-a", "inv", binding("fast", 10*time.Second)))
	b.putRow(mkRow("team-a", "web", "u1", 1))
	e := b.start(Options{Settle: time.Second, Clock: clock})
	waitFor(t, "the first snapshot", func() bool { return e.events.Load() == 1 })
	last := b.putRow(mkRow("team-a", "web", "u1", 2))
	waitFor(t, "the row applied", func() bool { return e.rowsRev.Load() >= last })
	clock.Advance(time.Second)
	waitFor(t, "the change", func() bool { return e.events.Load() == 2 })
	clock.Advance(10 * time.Second)
	waitFor(t, "a periodic event", func() bool { return e.events.Load() == 3 })

	evs := b.history(key("team-a", "inv"))
	first, change, periodic := evs[0].Event, evs[1].Event, evs[len(evs)-1].Event
	if periodic.Reason != busv1.ReasonPeriodic || periodic.Revision != change.Revision {
		t.Fatalf("last event: %s revision %d, want a periodic event of revision %d", periodic.Reason, periodic.Revision, change.Revision)
	}
	checkLink(t, "the change", change, first.Checksum)
	checkLink(t, "the periodic event", periodic, first.Checksum)
}

func TestALargeSnapshotCarriesThePreviousChecksumThroughItsManifest(t *testing.T) {
	b := newBed(t, func(o *bus.Options) { o.MaxMessageBytes = 64 << 10 })
	b.putInventory(nsInventory("team-a", "big", binding("s3", 0)))
	pad := strings.Repeat("x", 1<<10)
	for i := range 100 { // 100 KiB of rows: over the message limit
		b.putRow(mkRow("team-a", "web", rowName(i), pad))
	}
	e := b.start(Options{Settle: 5 * time.Millisecond})
	waitFor(t, "the snapshot", func() bool { return e.events.Load() == 1 })
	b.putRow(mkRow("team-a", "web", rowName(0), "changed"))
	waitFor(t, "the change", func() bool { return e.events.Load() == 2 })

	evs := b.history(key("team-a", "big"))
	ev := evs[1].Event
	if ev.Envelope != nil || ev.ManifestRef == nil {
		t.Fatalf("event holds envelope %v, manifest %+v; want a manifest", ev.Envelope != nil, ev.ManifestRef)
	}
	checkLink(t, "the event", ev, evs[0].Event.Checksum)
	_, env, err := history.Fetch(context.Background(), b.js, key("team-a", "big"), ev.Revision)
	if err != nil {
		t.Fatal(err)
	}
	if env.PreviousChecksum != evs[0].Event.Checksum {
		t.Errorf("the envelope assembled from the manifest has previousChecksum %q, want %q", env.PreviousChecksum, evs[0].Event.Checksum)
	}
}
