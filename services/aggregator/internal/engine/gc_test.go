package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
)

// storeObjects lists the envelope store: name to size.
func storeObjects(t testing.TB, b *bed) map[string]uint64 {
	t.Helper()
	obs, err := b.js.ObjectStore(context.Background(), bus.ObjectStoreEnvelopes)
	if err != nil {
		t.Fatal(err)
	}
	infos, err := obs.List(context.Background())
	if err != nil && !errors.Is(err, jetstream.ErrNoObjectsFound) {
		t.Fatal(err)
	}
	out := map[string]uint64{}
	for _, in := range infos {
		out[in.Name] = in.Size
	}
	return out
}

// churn changes one row per revision of an inventory whose snapshots go
// through manifests, n times, and returns the engine.
func churn(t *testing.T, b *bed, clock *fakeClock, opts Options, n int) *probe {
	t.Helper()
	return churnInventory(t, b, clock, opts, nsInventory("team-a", "big"), 600, n)
}

// churnInventory is churn for an inventory of the test's own config and
// rows rows.
func churnInventory(t *testing.T, b *bed, clock *fakeClock, opts Options, inv busv1.InventoryConfig, rows, n int) *probe {
	t.Helper()
	b.putInventory(inv)
	pad := strings.Repeat("x", 200)
	for i := range rows {
		b.putRow(mkRow("team-a", "web", rowName(i), pad))
	}
	e := b.start(opts)
	// The inventory's own revisions, not the engine's event count: another inventory of
	// the bed publishes its first snapshot at start too, in either order.
	k := key(inv.Namespace, inv.Name)
	waitFor(t, "the first snapshot", func() bool { return latestRevision(b, k) >= 1 })
	for i := range n {
		last := b.putRow(mkRow("team-a", "web", rowName((i*97)%rows), pad+strings.Repeat("y", i+1)))
		waitFor(t, "the row", func() bool { return e.rowsRev.Load() >= last })
		before := latestRevision(b, k)
		clock.Advance(time.Second)
		waitFor(t, "the revision", func() bool { return latestRevision(b, k) > before })
	}
	return e
}

// latestRevision is the newest revision on inv's snapshot subject (0: none yet).
func latestRevision(b *bed, inv busv1.NamespacedName) uint64 {
	evs := b.history(inv)
	if len(evs) == 0 {
		return 0
	}
	return evs[len(evs)-1].Event.Revision
}

func TestGarbageCollectionKeepsExactlyWhatRetainedRevisionsNeed(t *testing.T) {
	b := newBed(t, func(o *bus.Options) { o.SnapshotHistory = 8 })
	clock := newFakeClock()
	opts := Options{Settle: time.Second, Clock: clock, MaxMessageBytes: 8 << 10, GCInterval: time.Hour}
	e := churn(t, b, clock, opts, 40)
	grown := storeObjects(t, b)
	runs := e.gcRuns.Load()
	clock.Advance(time.Hour)
	waitFor(t, "a garbage collection", func() bool { return e.gcRuns.Load() > runs })

	evs := b.history(key("team-a", "big"))
	if len(evs) != 8 {
		t.Fatalf("history holds %d events, want 8", len(evs))
	}
	need := map[string]bool{}
	l := history.NewLoader(b.js, -1)
	for _, s := range evs {
		ev := s.Event
		if ev.ManifestRef == nil {
			t.Fatalf("revision %d has no manifest", ev.Revision)
		}
		env, err := l.Envelope(context.Background(), &ev)
		if err != nil {
			t.Fatalf("revision %d after collection: %v", ev.Revision, err)
		}
		if env.ItemCount != 600 {
			t.Fatalf("revision %d has %d items", ev.Revision, env.ItemCount)
		}
		need[ev.ManifestRef.Name] = true
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
		if _, err := l.Envelope(context.Background(), &s.Event); err != nil {
			t.Fatalf("revision %d after collection: %v", s.Event.Revision, err)
		}
	}
}

func TestGarbageCollectionWaitsForTheGracePeriodAndTrimsHistoryBytes(t *testing.T) {
	b := newBed(t, nil)
	clock := newFakeClock()
	opts := Options{Settle: time.Second, Clock: clock, MaxMessageBytes: 8 << 10, GCInterval: time.Hour,
		GCGrace: 24 * time.Hour, HistoryMaxBytes: 200 << 10}
	e := churn(t, b, clock, opts, 30)
	grown := storeObjects(t, b)
	runs := e.gcRuns.Load()
	clock.Advance(time.Hour)
	waitFor(t, "a garbage collection", func() bool { return e.gcRuns.Load() > runs })
	if left := storeObjects(t, b); len(left) != len(grown) {
		t.Errorf("objects younger than the grace period were deleted: %d of %d left", len(left), len(grown))
	}
	evs := b.history(key("team-a", "big"))
	if len(evs) >= 16 || len(evs) < 1 || evs[len(evs)-1].Event.Revision != 31 {
		t.Fatalf("history of %d events ending at revision %d; want it trimmed to its byte limit, the newest kept",
			len(evs), evs[len(evs)-1].Event.Revision)
	}
}

func TestAOneRowChangeStoresOneChunkAndAManifestAndShipsAOneRowDelta(t *testing.T) {
	b := newBed(t, nil)
	clock := newFakeClock()
	b.putInventory(nsInventory("team-a", "big"))
	pad := strings.Repeat("x", 300)
	const n = 5000
	for i := range n {
		b.putRow(mkRow("team-a", "web", rowName(i), pad))
	}
	e := b.start(Options{Settle: time.Second, Clock: clock})
	waitFor(t, "the first snapshot", func() bool { return e.events.Load() == 1 })
	before := storeObjects(t, b)
	last := b.putRow(mkRow("team-a", "web", rowName(2500), pad+"y"))
	waitFor(t, "the row", func() bool { return e.rowsRev.Load() >= last })
	clock.Advance(time.Second)
	waitFor(t, "the revision", func() bool { return e.events.Load() == 2 })
	var fresh []string
	for name := range storeObjects(t, b) {
		if _, ok := before[name]; !ok {
			fresh = append(fresh, name)
		}
	}
	if len(fresh) < 2 || len(fresh) > 3 {
		t.Errorf("the change stored %d new objects, want one or two chunks and a manifest: %v", len(fresh), fresh)
	}
	evs := b.history(key("team-a", "big"))
	ev := evs[len(evs)-1].Event
	if ev.ManifestRef == nil || ev.Delta == nil || len(ev.Delta.Upserts) != 1 || len(ev.Delta.Deletes) != 0 ||
		ev.Delta.BaseRevision != 1 || ev.Delta.BaseChecksum != evs[0].Event.Checksum {
		t.Fatalf("event: manifest %v, delta %+v", ev.ManifestRef, ev.Delta)
	}
}

func TestGarbageCollectionStartsEarlyOnceEnoughWasWritten(t *testing.T) {
	b := newBed(t, nil)
	clock := newFakeClock()
	opts := Options{Settle: time.Second, Clock: clock, MaxMessageBytes: 8 << 10, GCInterval: 24 * time.Hour,
		GCAfterBytes: 64 << 10}
	e := churn(t, b, clock, opts, 3)
	if n := e.gcRuns.Load(); n != 0 {
		t.Fatalf("%d collections within 3 changes, want none before %v", n, GCMinInterval)
	}
	clock.Advance(GCMinInterval)
	waitFor(t, "a collection started by the bytes written", func() bool { return e.gcRuns.Load() == 1 })
}
