package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/services/query/querytest"
)

func clusterInventory(name string, targets ...string) busv1.InventoryConfig {
	return busv1.InventoryConfig{Kind: busv1.KindClusterInventory, Name: name, UID: "uid-" + name, Generation: 1,
		TargetRefs: targets, Dedupe: busv1.DedupeKeepAll, DeletionPolicy: busv1.DeletionRetain}
}

// shardSize reads a shard's size from its metrics.
func shardSize(m *Metrics, shard string) (rows, inventories float64) {
	return testutil.ToFloat64(m.shard.rows.WithLabelValues(shard)), testutil.ToFloat64(m.shard.inventories.WithLabelValues(shard))
}

// ownedBy accepts the objects and inventories of the owners listed.
func ownedBy(owners ...bus.ObjectOwner) func(bus.ObjectOwner) bool {
	return func(o bus.ObjectOwner) bool {
		for _, x := range owners {
			if o == x {
				return true
			}
		}
		return false
	}
}

// Two cluster inventories on two shards read the same ClusterTarget's rows,
// so their snapshots have identical chunks. One shard's collection deletes
// its own unreferenced objects only: never the other shard's (referenced
// by its retained revisions or not), nor those written before shards.
func TestAShardsCollectionDeletesOnlyItsOwnObjects(t *testing.T) {
	b := newBed(t, nil)
	a, other := bus.ObjectOwner{ClusterInventory: "fleet-a"}, bus.ObjectOwner{ClusterInventory: "fleet-b"}
	b.putInventory(clusterInventory("fleet-a", "nodes"))
	b.putInventory(clusterInventory("fleet-b", "nodes"))
	pad := strings.Repeat("x", 200)
	for i := range 300 {
		b.putRow(mkRow("", "nodes", rowName(i), pad))
	}
	clock := newFakeClock()
	m := NewMetrics(prometheus.NewRegistry())
	ea := b.start(Options{Settle: time.Millisecond, Clock: clock, MaxMessageBytes: 8 << 10, GCInterval: time.Hour,
		Owns: ownedBy(a), Shard: "0", Metrics: m})
	_, stopB := b.startStoppable(Options{Settle: time.Millisecond, MaxMessageBytes: 8 << 10, Owns: ownedBy(other), Shard: "1"})
	for _, inv := range []string{"fleet-a", "fleet-b"} {
		waitFor(t, inv+"'s snapshot", func() bool { return latestRevision(b, key("", inv)) == 1 })
	}
	stopB() // its live view keeps nothing: only its retained revision references its objects
	if rows, invs := shardSize(m, "0"); rows != 300 || invs != 1 {
		t.Fatalf("shard 0 holds %v rows and %v inventories, want 300 and fleet-a only", rows, invs)
	}
	evA, evB := b.history(key("", "fleet-a"))[0].Event, b.history(key("", "fleet-b"))[0].Event
	if evA.ManifestRef == nil || evB.ManifestRef == nil || evA.Checksum != evB.Checksum {
		t.Fatalf("want two manifests of the same chunks: %+v, %+v", evA.ManifestRef, evB.ManifestRef)
	}
	stray := func(o bus.ObjectOwner, what string) string {
		sum := sha256.Sum256([]byte(what))
		name := o.Names(bus.ChunkObjectName)(hex.EncodeToString(sum[:]))
		obs, err := b.js.ObjectStore(context.Background(), bus.ObjectStoreEnvelopes)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := obs.PutBytes(context.Background(), name, []byte(what)); err != nil {
			t.Fatal(err)
		}
		return name
	}
	mine, theirs, before := stray(a, "mine"), stray(other, "theirs"), stray(bus.ObjectOwner{}, "before shards")

	runs := ea.gcRuns.Load()
	clock.Advance(time.Hour)
	waitFor(t, "shard 0's collection", func() bool { return ea.gcRuns.Load() > runs })
	waitFor(t, "its unreferenced object deleted", func() bool { _, ok := storeObjects(t, b)[mine]; return !ok })
	objects := storeObjects(t, b)
	for _, n := range []string{theirs, before} {
		if _, ok := objects[n]; !ok {
			t.Errorf("shard 0 deleted %s, not its own", n)
		}
	}
	l := history.NewLoader(b.js, -1)
	for _, s := range b.history(key("", "fleet-b")) {
		env, err := l.Envelope(context.Background(), &s.Event)
		if err != nil || env.ItemCount != 300 {
			t.Fatalf("fleet-b revision %d after shard 0's collection: %v", s.Event.Revision, err)
		}
	}
}

// A shard holds only the rows its inventories read; an inventory of a new
// namespace gets its namespace's rows watched, and its first snapshot holds
// them all.
func TestAShardWatchesTheRowsOfItsInventoriesNamespaces(t *testing.T) {
	for _, tc := range []struct {
		name    string
		filters int
	}{
		{"one filter per namespace", 0},
		{"every row, when the shard reads more namespaces than it names", 1},
	} {
		t.Run(tc.name, func(t *testing.T) { shardWatchesItsRows(t, tc.filters) })
	}
}

func shardWatchesItsRows(t *testing.T, filters int) {
	b := newBed(t, nil)
	owners := ownedBy(bus.ObjectOwner{Namespace: "team-a"}, bus.ObjectOwner{Namespace: "team-c"})
	b.putInventory(nsInventory("team-a", "inv"))
	b.putInventory(nsInventory("team-b", "inv")) // another shard's
	for i := range 5 {
		b.putRow(mkRow("team-a", "web", rowName(i), i))
		b.putRow(mkRow("team-b", "web", rowName(i), i))
		b.putRow(mkRow("team-c", "web", rowName(i), i))
	}
	m := NewMetrics(prometheus.NewRegistry())
	b.start(Options{Settle: time.Millisecond, Owns: owners, Shard: "3", Metrics: m, MaxRowFilters: filters})
	waitFor(t, "team-a/inv's snapshot", func() bool { return latestRevision(b, key("team-a", "inv")) == 1 })
	if rows, _ := shardSize(m, "3"); rows != 5 {
		t.Errorf("the shard holds %v rows, want team-a's 5", rows)
	}
	if got := b.history(key("team-b", "inv")); len(got) != 0 {
		t.Errorf("the shard published another shard's inventory: %v", got)
	}
	b.putInventory(nsInventory("team-c", "inv"))
	waitFor(t, "team-c/inv's snapshot", func() bool { return latestRevision(b, key("team-c", "inv")) >= 1 })
	if first := b.history(key("team-c", "inv"))[0].Event; first.ItemCount != 5 {
		t.Errorf("team-c/inv's first snapshot holds %d rows, want 5", first.ItemCount)
	}
	b.putRow(mkRow("team-b", "web", rowName(9), 9)) // not the shard's: never held
	b.deleteRow(mkRow("team-c", "web", rowName(0), 0).Key())
	waitFor(t, "the deletion", func() bool { return latestRevision(b, key("team-c", "inv")) == 2 })
	waitFor(t, "the shard's metrics", func() bool { rows, invs := shardSize(m, "3"); return rows == 9 && invs == 2 })
}

// Objects written before the aggregator was sharded carry no owner: shard
// 0 deletes those no retained event of any inventory references, reading
// every history for it, and keeps those another shard's inventory still
// references.
func TestShardZeroCollectsObjectsWrittenBeforeShardsReadingEveryHistory(t *testing.T) {
	b := newBed(t, nil)
	old := key("team-b", "old") // another shard's, published before shards
	p, err := querytest.NewPublisher(context.Background(), b.js, old)
	if err != nil {
		t.Fatal(err)
	}
	var rows []busv1.Row
	for i := range 300 {
		rows = append(rows, mkRow("team-b", "web", rowName(i), strings.Repeat("x", 200)))
	}
	ev, err := p.Publish(context.Background(), rows, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, owned := bus.ParseObjectOwner(ev.ManifestRef.Name); owned {
		t.Fatalf("the old release's manifest %s has an owner", ev.ManifestRef.Name)
	}
	obs, err := b.js.ObjectStore(context.Background(), bus.ObjectStoreEnvelopes)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("unreferenced"))
	stray := bus.ChunkObjectName(hex.EncodeToString(sum[:]))
	if _, err := obs.PutBytes(context.Background(), stray, []byte("unreferenced")); err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	e := b.start(Options{Settle: time.Millisecond, Clock: clock, GCInterval: time.Hour,
		Owns: ownedBy(bus.ObjectOwner{Namespace: "team-a"}), CollectUnowned: true, Shard: "0"})
	waitFor(t, "the rebuild", func() bool { return e.started.Load() })
	runs := e.gcRuns.Load()
	clock.Advance(time.Hour)
	waitFor(t, "shard 0's collection", func() bool { return e.gcRuns.Load() > runs })
	waitFor(t, "the unreferenced old object deleted", func() bool { _, ok := storeObjects(t, b)[stray]; return !ok })
	l := history.NewLoader(b.js, -1)
	env, err := l.Envelope(context.Background(), ev)
	if err != nil || env.ItemCount != 300 {
		t.Fatalf("team-b/old's revision after shard 0's collection: %v", err)
	}
}
