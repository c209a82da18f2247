package aggregator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/shard"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/aggregator"
	"kollect.dev/kollect/services/aggregator/internal/engine"
)

// replica is one aggregator replica of a test, with its own metrics.
type replica struct {
	reg  *prometheus.Registry
	stop func()
}

func startReplica(t *testing.T, n *testenv.NATS, id string, shards int) *replica {
	t.Helper()
	c := aggregator.DefaultConfig()
	c.Leader.Identity, c.Settle, c.Leader.LeaseDuration, c.Shards = id, 5*time.Millisecond, 900*time.Millisecond, shards
	r := &replica{reg: prometheus.NewRegistry()}
	c.MetricsRegistry = r.reg
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- aggregator.RunWith(ctx, n.JS, c) }()
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("%s: %v", id, err)
			}
		})
	}
	t.Cleanup(r.stop)
	return r
}

// sum adds the values of a metric family's series whose labels include
// match.
func (r *replica) sum(t *testing.T, name string, match map[string]string) float64 {
	t.Helper()
	fams, err := r.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	next:
		for _, m := range f.GetMetric() {
			for k, v := range match {
				found := false
				for _, l := range m.GetLabel() {
					found = found || l.GetName() == k && l.GetValue() == v
				}
				if !found {
					continue next
				}
			}
			total += m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	return total
}

// holders returns who holds each of the aggregator's shards ("" for none).
func holders(t *testing.T, n *testenv.NATS, shards int) []string {
	t.Helper()
	kv, err := n.JS.KeyValue(context.Background(), bus.BucketLeases)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, shards)
	for i := range out {
		e, err := kv.Get(context.Background(), fmt.Sprintf("aggregator.shards.%d.%d", shards, i))
		if err != nil {
			continue
		}
		var rec struct{ Holder string }
		if json.Unmarshal(e.Value(), &rec) == nil {
			out[i] = rec.Holder
		}
	}
	return out
}

func countOf(hs []string, id string) int {
	c := 0
	for _, h := range hs {
		if h == id {
			c++
		}
	}
	return c
}

func putRowIn(t *testing.T, n *testenv.NATS, ns, uid string) {
	t.Helper()
	r := busv1.Row{TargetNamespace: ns, TargetName: "web", Namespace: ns, Name: uid, UID: uid,
		Version: "v1", Kind: "ConfigMap"}
	put(t, n, bus.BucketRows, bus.RowKey(r.Key()), busv1.RowEntry{Row: r})
}

// Two replicas spread the inventories of several namespaces over their
// shards, all active: each publishes some, every inventory is published by
// exactly one. When one stops, the other takes its shards over and the
// revisions continue, never repeated.
func TestTwoReplicasSpreadTheInventoriesAndOneTakesOverWhenTheOtherStops(t *testing.T) {
	const shards = 4
	n := testenv.StartNATS(t)
	if err := bus.Provision(context.Background(), n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	markers(t, n)
	var nss []string // namespaces on every shard
	for covered := map[int]bool{}; len(covered) < shards || len(nss) < 2*shards; {
		ns := fmt.Sprintf("team-%d", len(nss))
		covered[shard.Of(ns, shards)] = true
		nss = append(nss, ns)
	}
	a, b := startReplica(t, n, "replica-a", shards), startReplica(t, n, "replica-b", shards)
	testenv.EventuallyTrue(t, 20*time.Second, "two shards each", func() bool {
		hs := holders(t, n, shards)
		return countOf(hs, "replica-a") == 2 && countOf(hs, "replica-b") == 2
	})
	for _, ns := range nss { // rows first: each first snapshot holds its namespace's row
		putRowIn(t, n, ns, "u1")
	}
	for _, ns := range nss {
		inv := busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: ns, Name: "inv", Generation: 1,
			DeletionPolicy: busv1.DeletionRetain, Bindings: []busv1.Binding{}}
		put(t, n, bus.BucketConfig, bus.ConfigKey(bus.ConfigRef{Kind: inv.Kind, Namespace: ns, Name: "inv"}), inv)
	}
	revisions := func(ns string) []uint64 {
		l, err := history.List(context.Background(), n.JS, busv1.NamespacedName{Namespace: ns, Name: "inv"})
		if err != nil {
			t.Fatal(err)
		}
		var out []uint64
		for _, e := range l {
			out = append(out, e.Revision)
		}
		return out
	}
	snapshots, err := n.JS.Stream(context.Background(), bus.StreamSnapshots)
	if err != nil {
		t.Fatal(err)
	}
	every := func(what string, want uint64) { // polls the last events only: a scan per poll would pile up consumers
		testenv.EventuallyTrue(t, 30*time.Second, what, func() bool {
			for _, ns := range nss {
				m, err := snapshots.GetLastMsgForSubject(context.Background(), bus.SnapshotSubject(busv1.NamespacedName{Namespace: ns, Name: "inv"}))
				var ev busv1.SnapshotEvent
				if err != nil || json.Unmarshal(m.Data, &ev) != nil || ev.Revision != want {
					return false
				}
			}
			return true
		})
	}
	every("every inventory's first revision", 1)
	for _, ns := range nss {
		if got := revisions(ns); len(got) != 1 {
			t.Errorf("%s/inv's history holds revisions %v, want 1", ns, got)
		}
	}
	change := map[string]string{engine.LabelReason: string(busv1.ReasonChange)}
	pa, pb := a.sum(t, engine.NamePublishes, change), b.sum(t, engine.NamePublishes, change)
	if pa == 0 || pb == 0 || int(pa+pb) != len(nss) {
		t.Errorf("replica a published %v and b %v snapshots, want some each and %d in all", pa, pb, len(nss))
	}
	ia, ib := a.sum(t, engine.NameShardInventories, nil), b.sum(t, engine.NameShardInventories, nil)
	if ia == 0 || ib == 0 || int(ia+ib) != len(nss) {
		t.Errorf("replica a reports %v inventories and b %v, want some each and %d in all", ia, ib, len(nss))
	}

	b.stop()
	testenv.EventuallyTrue(t, 20*time.Second, "replica a holds every shard", func() bool {
		return countOf(holders(t, n, shards), "replica-a") == shards
	})
	for _, ns := range nss {
		putRowIn(t, n, ns, "u2")
	}
	every("every inventory's second revision", 2)
	for _, ns := range nss {
		if got := revisions(ns); len(got) != 2 || got[0] != 1 || got[1] != 2 {
			t.Errorf("%s/inv's history holds revisions %v, want 1 and 2", ns, got)
		}
	}
}
