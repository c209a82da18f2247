package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink/memory"
)

// Applying each published delta to the previous published snapshot yields
// the next one exactly, for random batches of puts, changes and deletes on
// a namespaced and a cluster inventory.
func TestPublishedDeltasReproduceTheNextSnapshot(t *testing.T) {
	b := newBed(t, nil)
	clock := newFakeClock()
	cl := busv1.InventoryConfig{Kind: busv1.KindClusterInventory, Name: "fleet", Generation: 1,
		TargetRefs: []string{"a", "b"}, Dedupe: busv1.DedupeByResourceUID, DeletionPolicy: busv1.DeletionRetain}
	b.putInventory(nsInventory("team-a", "inv"))
	b.putInventory(cl)
	e := b.start(Options{Settle: time.Second, Clock: clock})
	waitFor(t, "the empty snapshots", func() bool { return e.events.Load() == 2 })

	rng := rand.New(rand.NewPCG(7, 11))
	targets := []struct{ ns, name string }{{"team-a", "web"}, {"team-a", "db"}, {"", "a"}, {"", "b"}, {"", "c"}}
	for batch := range 25 {
		var last uint64
		for range 1 + rng.IntN(8) {
			tg := targets[rng.IntN(len(targets))]
			r := mkRow(tg.ns, tg.name, rowName(rng.IntN(12)), float64(rng.IntN(3)))
			if rng.IntN(4) == 0 {
				b.deleteRow(r.Key())
				continue
			}
			last = b.putRow(r)
		}
		last = b.putRow(mkRow("team-a", "web", "tick", float64(batch))) // every batch changes something
		waitFor(t, "the batch applied", func() bool { return e.rowsRev.Load() >= last })
		before := e.events.Load()
		clock.Advance(time.Second)
		waitFor(t, "the batch published", func() bool { return e.events.Load() > before && e.settled.Load() > 0 })
	}
	for _, inv := range []busv1.NamespacedName{key("team-a", "inv"), key("", "fleet")} {
		checkDeltas(t, b, inv)
	}
}

func checkDeltas(t *testing.T, b *bed, inv busv1.NamespacedName) {
	t.Helper()
	evs := b.history(inv)
	if len(evs) < 2 {
		t.Fatalf("%s: %d events", inv, len(evs))
	}
	for i := 1; i < len(evs); i++ {
		prev, next := evs[i-1].Event, evs[i].Event
		if next.Revision != prev.Revision+1 || next.Delta == nil || next.Delta.BaseRevision != prev.Revision ||
			next.Delta.BaseChecksum != prev.Checksum {
			t.Fatalf("%s: event %d (revision %d) does not follow revision %d with a delta", inv, i, next.Revision, prev.Revision)
		}
		got := memory.ApplyDelta(prev.Envelope.Items, next.Delta)
		if diff := cmp.Diff(next.Envelope.Items, got); diff != "" {
			t.Fatalf("%s revision %d: previous snapshot + delta (-want +got):\n%s", inv, next.Revision, diff)
		}
		uids := map[string]bool{}
		for _, r := range next.Envelope.Items {
			if inv.Namespace == "" && (r.TargetNamespace != "" || !slices.Contains([]string{"a", "b"}, r.TargetName) || uids[r.UID]) {
				t.Fatalf("%s: row %s/%s breaks membership or byResourceUID", inv, r.TargetName, r.UID)
			}
			if inv.Namespace != "" && r.TargetNamespace != inv.Namespace {
				t.Fatalf("%s: row of %q reached a namespaced inventory", inv, r.TargetNamespace)
			}
			uids[r.UID] = true
		}
	}
}
