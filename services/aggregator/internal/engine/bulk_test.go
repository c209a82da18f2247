package engine

import (
	"fmt"
	"testing"
	"time"
)

// window adds (or, with update, changes) rows over one settle window of
// one second, rows still arriving 400 ms before its end, and waits for the
// check at its end. It returns the next row number.
func window(t *testing.T, b *bed, e *probe, clock *fakeClock, from, n int, update string) int {
	t.Helper()
	for half := range 2 {
		var last uint64
		for i := range n / 2 {
			last = b.putRow(mkRow("team-a", "web", rowName(from+i), update))
		}
		waitFor(t, "the rows", func() bool { return e.rowsRev.Load() >= last })
		if update == "" {
			from += n / 2
		}
		checks := e.settled.Load()
		if half == 0 {
			clock.Advance(600 * time.Millisecond)
		} else {
			clock.Advance(400 * time.Millisecond)
			waitFor(t, "the check", func() bool { return e.settled.Load() > checks })
		}
	}
	return from
}

func TestABulkArrivalPublishesAtGrowingIntervalsAndAtOnceWhenItStops(t *testing.T) {
	b := newBed(t, nil)
	clock := newFakeClock()
	inv := nsInventory("team-a", "big")
	b.putInventory(inv)
	// Small messages: the snapshot goes through chunks from the first rows.
	e := b.start(Options{Settle: time.Second, Clock: clock, MaxMessageBytes: 2 << 10})
	k := key(inv.Namespace, inv.Name)
	clock.Advance(time.Second)
	waitFor(t, "the first, empty, snapshot", func() bool { return e.events.Load() == 1 })
	const windows, perWindow = 12, 40
	next := 0
	for range windows {
		next = window(t, b, e, clock, next, perWindow, "")
	}
	if got := e.events.Load() - 1; got < 2 || got > 5 {
		t.Errorf("rows added in bulk over %d settle windows made %d events, want 2 to 5 at growing intervals", windows, got)
	}
	// The rows stop: the next check finds none added within its window.
	clock.Advance(time.Second)
	waitFor(t, "the event holding every row", func() bool { return lastEvent(t, b, k).ItemCount == next })
}

func TestUpdatesOfManyRowsArePublishedEveryWindow(t *testing.T) {
	b := newBed(t, nil)
	clock := newFakeClock()
	inv := nsInventory("team-a", "big")
	b.putInventory(inv)
	for i := range 400 {
		b.putRow(mkRow("team-a", "web", rowName(i), "v0"))
	}
	e := b.start(Options{Settle: time.Second, Clock: clock, MaxMessageBytes: 2 << 10})
	clock.Advance(time.Second)
	waitFor(t, "the first snapshot", func() bool { return e.events.Load() == 1 })
	const windows = 6
	for w := range windows {
		window(t, b, e, clock, w*40, 40, fmt.Sprintf("v%d", w+1))
	}
	if got := e.events.Load() - 1; got != windows {
		t.Errorf("updates of 40 rows in each of %d windows made %d events, want one per window", windows, got)
	}
}

func TestASmallInventoryIsPublishedEveryWindowWhileRowsAreAdded(t *testing.T) {
	b := newBed(t, nil)
	clock := newFakeClock()
	b.putInventory(nsInventory("team-a", "small"))
	e := b.start(Options{Settle: time.Second, Clock: clock})
	clock.Advance(time.Second)
	waitFor(t, "the first, empty, snapshot", func() bool { return e.events.Load() == 1 })
	const windows = 6
	next := 0
	for range windows {
		next = window(t, b, e, clock, next, 40, "")
	}
	if got := e.events.Load() - 1; got != windows {
		t.Errorf("rows added to an inline snapshot in %d windows made %d events, want one per window", windows, got)
	}
}
