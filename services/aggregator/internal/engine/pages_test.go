package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
)

// pagedRows is enough rows for a manifest of several pages (a page lists
// about 64 chunks of about 256 rows).
const pagedRows = 40_000

// putRowsAsync writes rows with asynchronous KV publishes and waits for
// their acknowledgements.
func putRowsAsync(t testing.TB, b *bed, rows []busv1.Row) {
	t.Helper()
	for i, r := range rows {
		v, err := json.Marshal(busv1.RowEntry{Row: r, TargetGeneration: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.js.PublishAsync("$KV."+bus.BucketRows+"."+bus.RowKey(r.Key()), v); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 999 || i == len(rows)-1 { // a loaded machine stalls a longer backlog
			select {
			case <-b.js.PublishAsyncComplete():
			case <-time.After(time.Minute):
				t.Fatal("rows not acknowledged")
			}
		}
	}
}

// subjectRevision is the revision of the last event on inv's subject (0: none
// yet), read without a consumer, so it can be polled.
func subjectRevision(t testing.TB, b *bed, inv busv1.NamespacedName) uint64 {
	t.Helper()
	return lastEvent(t, b, inv).Revision
}

// lastEvent is the last event on inv's subject (zero: none yet), read
// without a consumer.
func lastEvent(t testing.TB, b *bed, inv busv1.NamespacedName) busv1.SnapshotEvent {
	t.Helper()
	var ev busv1.SnapshotEvent
	s, err := b.js.Stream(context.Background(), bus.StreamSnapshots)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetLastMsgForSubject(context.Background(), bus.SnapshotSubject(inv))
	if err != nil {
		return ev
	}
	if err := json.Unmarshal(m.Data, &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

func pagedInventoryRows(v string) []busv1.Row {
	rows := make([]busv1.Row, pagedRows)
	for i := range rows {
		rows[i] = mkRow("team-a", "web", rowName(i), v)
	}
	return rows
}

func TestAOneRowChangeOfAPagedInventoryStoresItsChunkOnePageAndARoot(t *testing.T) {
	b := newBed(t, nil)
	clock := newFakeClock()
	b.putInventory(nsInventory("team-a", "big"))
	putRowsAsync(t, b, pagedInventoryRows("x"))
	e := b.start(Options{Settle: time.Second, Clock: clock})
	k := key("team-a", "big")
	waitFor(t, "the first snapshot", func() bool { return subjectRevision(t, b, k) >= 1 })
	before := storeObjects(t, b)
	last := b.putRow(mkRow("team-a", "web", rowName(pagedRows/2), "y"))
	waitFor(t, "the row", func() bool { return e.rowsRev.Load() >= last })
	clock.Advance(time.Second)
	waitFor(t, "the revision", func() bool { return subjectRevision(t, b, k) >= 2 })
	kinds := map[string]int{}
	for name := range storeObjects(t, b) {
		if _, ok := before[name]; !ok {
			kinds[bus.ObjectKind(name)]++
		}
	}
	if kinds["chunk"] < 1 || kinds["chunk"] > 2 || kinds["page"] != 1 || kinds["manifest"] != 1 || len(kinds) != 3 {
		t.Errorf("the change stored %v, want one or two chunks, one page and a root", kinds)
	}
	evs := b.history(k)
	ev := evs[len(evs)-1].Event
	root, err := history.NewLoader(b.js, -1).Root(context.Background(), ev.ManifestRef)
	if err != nil {
		t.Fatal(err)
	}
	if len(root.Pages) < 2 || len(root.Chunks) != 0 {
		t.Errorf("the root lists %d pages and %d chunks, want pages only", len(root.Pages), len(root.Chunks))
	}
}

func TestGarbageCollectionKeepsThePagesOfRetainedRevisionsAndTheirChunks(t *testing.T) {
	b := newBed(t, func(o *bus.Options) { o.SnapshotHistory = 3 })
	clock := newFakeClock()
	b.putInventory(nsInventory("team-a", "big"))
	putRowsAsync(t, b, pagedInventoryRows("x"))
	e := b.start(Options{Settle: time.Second, Clock: clock, GCInterval: time.Hour})
	k := key("team-a", "big")
	waitFor(t, "the first snapshot", func() bool { return subjectRevision(t, b, k) >= 1 })
	for i := range 6 {
		last := b.putRow(mkRow("team-a", "web", rowName((i*7919)%pagedRows), strings.Repeat("y", i+1)))
		waitFor(t, "the row", func() bool { return e.rowsRev.Load() >= last })
		before := subjectRevision(t, b, k)
		clock.Advance(time.Second)
		waitFor(t, "the revision", func() bool { return subjectRevision(t, b, k) > before })
	}
	grown := storeObjects(t, b)
	runs := e.gcRuns.Load()
	clock.Advance(time.Hour)
	waitFor(t, "a garbage collection", func() bool { return e.gcRuns.Load() > runs })

	evs := b.history(k)
	need := map[string]bool{}
	l := history.NewLoader(b.js, -1)
	pages := 0
	for _, s := range evs {
		ev := s.Event
		need[ev.ManifestRef.Name] = true
		root, err := l.Root(context.Background(), ev.ManifestRef)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range root.Pages {
			need[bus.PageObjectNameIn(ev.ManifestRef.Name, p.Digest)] = true
			pages++
		}
		m, err := l.Manifest(context.Background(), &ev)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Chunks {
			need[bus.ChunkObjectNameIn(ev.ManifestRef.Name, c.Digest)] = true
		}
		if ev.DeltaRef != nil {
			need[ev.DeltaRef.Name] = true
		}
	}
	if pages == 0 {
		t.Fatal("no retained revision is paged")
	}
	waitFor(t, "the store holding only what retained revisions need", func() bool {
		left := storeObjects(t, b)
		for name := range left {
			if !need[name] {
				return false
			}
		}
		return len(left) < len(grown)
	})
	for _, s := range evs {
		if _, err := l.RawRows(context.Background(), &s.Event); err != nil {
			t.Fatalf("revision %d after collection: %v", s.Event.Revision, err)
		}
	}
}

func TestARestartedEngineTakesAPagedManifestAsItsDeltaBase(t *testing.T) {
	b := newBed(t, nil)
	b.putInventory(nsInventory("team-a", "big"))
	putRowsAsync(t, b, pagedInventoryRows("x"))
	k := key("team-a", "big")
	opts := Options{Settle: 5 * time.Millisecond}
	e, stop := b.startStoppable(opts)
	waitFor(t, "the first snapshot", func() bool { return e.events.Load() >= 1 })
	stop()
	first := lastEvent(t, b, k)
	if root, err := history.NewLoader(b.js, -1).Root(context.Background(), first.ManifestRef); err != nil || len(root.Pages) < 2 {
		t.Fatalf("the first revision is not paged: %v", err)
	}

	// Changed while no engine runs: only the published revision, read back
	// through its pages, tells the next engine what the change was.
	b.putRow(mkRow("team-a", "web", rowName(123), "changed"))
	b.start(opts)
	waitFor(t, "the change after the restart", func() bool { return subjectRevision(t, b, k) > first.Revision })
	ev := lastEvent(t, b, k)
	if ev.Delta == nil || len(ev.Delta.Upserts) != 1 || len(ev.Delta.Deletes) != 0 ||
		ev.Delta.BaseRevision != first.Revision || ev.Delta.BaseChecksum != first.Checksum {
		t.Fatalf("the change after the restart has delta %+v, want one upsert on revision %d", ev.Delta, first.Revision)
	}
}
