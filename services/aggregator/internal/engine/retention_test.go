package engine

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
)

// revisions returns the revisions of a history, oldest first.
func revisions(evs []history.Stored) []uint64 {
	var out []uint64
	for _, s := range evs {
		out = append(out, s.Event.Revision)
	}
	return out
}

// collectNow advances the clock past the collection interval and waits for
// one more collection.
func collectNow(t *testing.T, e *probe, clock *fakeClock, d time.Duration) {
	t.Helper()
	runs := e.gcRuns.Load()
	clock.Advance(d)
	waitFor(t, "a garbage collection", func() bool { return e.gcRuns.Load() > runs })
}

func TestRetentionKeepsAnInventorysOwnRevisionsAndTheChunksTheyShare(t *testing.T) {
	b := newBed(t, func(o *bus.Options) { o.SnapshotHistory = 64 })
	clock := newFakeClock()
	inv := nsInventory("team-a", "big")
	inv.History = busv1.HistoryLimits{Revisions: 3}
	opts := Options{Settle: time.Second, Clock: clock, MaxMessageBytes: 8 << 10, GCInterval: time.Hour,
		HistoryRevisions: 16}
	e := churnInventory(t, b, clock, opts, inv, 4000, 10)
	l := history.NewLoader(b.js, -1)
	chunksOf := func(ev busv1.SnapshotEvent) map[string]bool {
		m, err := l.Manifest(context.Background(), &ev)
		if err != nil {
			t.Fatalf("manifest of revision %d: %v", ev.Revision, err)
		}
		out := map[string]bool{}
		for _, c := range m.Chunks {
			out[bus.ChunkObjectNameIn(ev.ManifestRef.Name, c.Digest)] = true
		}
		return out
	}
	before := b.history(key("team-a", "big"))
	first := chunksOf(before[0].Event)

	collectNow(t, e, clock, time.Hour)
	evs := b.history(key("team-a", "big"))
	if diff := cmp.Diff([]uint64{9, 10, 11}, revisions(evs)); diff != "" {
		t.Fatalf("retained revisions (-want +got):\n%s", diff)
	}
	kept := map[string]bool{}
	for _, s := range evs {
		for name := range chunksOf(s.Event) {
			kept[name] = true
		}
	}
	var shared, dropped []string
	for name := range first {
		if kept[name] {
			shared = append(shared, name)
		} else {
			dropped = append(dropped, name)
		}
	}
	if len(shared) == 0 || len(dropped) == 0 {
		t.Fatalf("revision 1 has %d chunks the retained revisions share and %d they do not; the churn should give both",
			len(shared), len(dropped))
	}
	waitFor(t, "the chunks only dropped revisions referenced to be deleted", func() bool {
		left := storeObjects(t, b)
		for _, name := range dropped {
			if _, ok := left[name]; ok {
				return false
			}
		}
		return true
	})
	left := storeObjects(t, b)
	for _, name := range shared {
		if _, ok := left[name]; !ok {
			t.Errorf("chunk %s, written by revision 1 and shared by a retained revision, was deleted", name)
		}
	}
	for _, s := range evs {
		if _, err := l.Envelope(context.Background(), &s.Event); err != nil {
			t.Errorf("retained revision %d after collection: %v", s.Event.Revision, err)
		}
	}
}

func TestRetentionDefaultsAndScopeCapApplyPerInventory(t *testing.T) {
	b := newBed(t, func(o *bus.Options) { o.SnapshotHistory = 64 })
	clock := newFakeClock()
	capped := nsInventory("team-a", "big")
	capped.History, capped.HistoryCap = busv1.HistoryLimits{Revisions: 8}, busv1.HistoryLimits{Revisions: 2}
	other := nsInventory("team-b", "small")
	b.putInventory(other)
	opts := Options{Settle: time.Second, Clock: clock, MaxMessageBytes: 8 << 10, GCInterval: time.Hour,
		HistoryRevisions: 4}
	e := churnInventory(t, b, clock, opts, capped, 600, 6)
	small := key("team-b", "small")
	waitFor(t, "the small inventory's first snapshot", func() bool { return latestRevision(b, small) >= 1 })
	for i := range 6 {
		last := b.putRow(mkRow("team-b", "web", rowName(i), "v"))
		waitFor(t, "the row", func() bool { return e.rowsRev.Load() >= last })
		before := latestRevision(b, small)
		clock.Advance(time.Second)
		waitFor(t, "the revision", func() bool { return latestRevision(b, small) > before })
	}
	collectNow(t, e, clock, time.Hour)
	if diff := cmp.Diff([]uint64{6, 7}, revisions(b.history(key("team-a", "big")))); diff != "" {
		t.Errorf("the capped inventory's revisions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]uint64{4, 5, 6, 7}, revisions(b.history(key("team-b", "small")))); diff != "" {
		t.Errorf("the default inventory's revisions (-want +got):\n%s", diff)
	}
}

func TestRetentionDropsRevisionsOlderThanMaxAgeButKeepsTheNewest(t *testing.T) {
	b := newBed(t, func(o *bus.Options) { o.SnapshotHistory = 64 })
	clock := newFakeClock()
	inv := nsInventory("team-a", "big")
	inv.History = busv1.HistoryLimits{MaxAge: busv1.Duration{Duration: 90 * time.Minute}}
	opts := Options{Settle: time.Second, Clock: clock, MaxMessageBytes: 8 << 10, GCInterval: time.Hour}
	e := churnInventory(t, b, clock, opts, inv, 600, 3)
	collectNow(t, e, clock, time.Hour)
	if diff := cmp.Diff([]uint64{1, 2, 3, 4}, revisions(b.history(key("team-a", "big")))); diff != "" {
		t.Fatalf("revisions within maxAge (-want +got):\n%s", diff)
	}
	collectNow(t, e, clock, time.Hour)
	if diff := cmp.Diff([]uint64{4}, revisions(b.history(key("team-a", "big")))); diff != "" {
		t.Errorf("revisions after maxAge passed (-want +got):\n%s", diff)
	}
}

func TestEffectiveHistory(t *testing.T) {
	h := func(r int64, age time.Duration, by int64) busv1.HistoryLimits {
		return busv1.HistoryLimits{Revisions: r, MaxAge: busv1.Duration{Duration: age}, MaxBytes: by}
	}
	def := h(16, 7*24*time.Hour, 0)
	tests := []struct {
		name       string
		asked, cap busv1.HistoryLimits
		want       busv1.HistoryLimits
	}{
		{"nothing asked keeps the defaults", h(0, 0, 0), h(0, 0, 0), def},
		{"what is asked replaces the default", h(100, time.Hour, 1<<20), h(0, 0, 0), h(100, time.Hour, 1<<20)},
		{"the cap lowers what is asked", h(100, 30*24*time.Hour, 0), h(50, 24*time.Hour, 0), h(50, 24*time.Hour, 0)},
		{"the cap lowers a default", h(0, 0, 0), h(4, 0, 0), h(4, 7*24*time.Hour, 0)},
		{"the cap bounds an unlimited default", h(0, 0, 0), h(0, 0, 1<<30), h(16, 7*24*time.Hour, 1<<30)},
		{"a value under the cap stays", h(2, 0, 0), h(4, 0, 0), h(2, 7*24*time.Hour, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, EffectiveHistory(tt.asked, tt.cap, def)); diff != "" {
				t.Errorf("EffectiveHistory (-want +got):\n%s", diff)
			}
		})
	}
}
