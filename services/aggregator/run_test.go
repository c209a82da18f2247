package aggregator_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/aggregator"
)

func put(t *testing.T, n *testenv.NATS, bucket, key string, v any) {
	t.Helper()
	kv, err := n.JS.KeyValue(context.Background(), bucket)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(context.Background(), key, b); err != nil {
		t.Fatal(err)
	}
}

func putRow(t *testing.T, n *testenv.NATS, uid string, v int) {
	t.Helper()
	r := busv1.Row{TargetNamespace: "team-a", TargetName: "web", Namespace: "team-a", Name: uid, UID: uid,
		Version: "v1", Kind: "ConfigMap", Attributes: map[string]any{"v": v}}
	put(t, n, bus.BucketRows, bus.RowKey(r.Key()), busv1.RowEntry{Row: r})
}

// Two replicas share the bus: one leads and publishes, and when it stops the
// other takes over and continues the revisions; no revision is published
// twice.
func TestOneOfTwoReplicasPublishesAndTheOtherTakesOver(t *testing.T) {
	n := startBusWithInventory(t)
	putRow(t, n, "u1", 1)

	stops := map[string]func(){}
	for _, id := range []string{"replica-a", "replica-b"} {
		c := aggregator.DefaultConfig()
		c.Leader.Identity, c.Settle, c.Leader.LeaseDuration = id, 5*time.Millisecond, 900*time.Millisecond
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- aggregator.RunWith(ctx, n.JS, c) }()
		var once sync.Once
		stops[id] = func() {
			once.Do(func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("%s: %v", id, err)
				}
			})
		}
		t.Cleanup(stops[id])
	}
	history := func() []history.Entry {
		l, err := history.List(context.Background(), n.JS, busv1.NamespacedName{Namespace: "team-a", Name: "inv"})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	testenv.EventuallyTrue(t, 20*time.Second, "the first snapshot", func() bool { return len(history()) == 1 })
	leader := leaseHolder(t, n)
	putRow(t, n, "u2", 1)
	testenv.EventuallyTrue(t, 20*time.Second, "revision 2", func() bool { return len(history()) == 2 })
	stops[leader]()
	putRow(t, n, "u3", 1)
	testenv.EventuallyTrue(t, 20*time.Second, "revision 3 from the other replica", func() bool { return len(history()) == 3 })
	if now := leaseHolder(t, n); now == leader {
		t.Errorf("lease still held by %s after it stopped", leader)
	}
	for i, e := range history() {
		if e.Revision != uint64(i+1) || e.Reason != busv1.ReasonChange {
			t.Fatalf("history %v: entry %d is revision %d (%s)", history(), i, e.Revision, e.Reason)
		}
	}
	if e := history()[2]; e.ItemCount != 3 {
		t.Errorf("revision 3 holds %d items, want 3", e.ItemCount)
	}
}

func leaseHolder(t *testing.T, n *testenv.NATS) string {
	t.Helper()
	var holder string
	testenv.EventuallyTrue(t, 20*time.Second, "a lease holder", func() bool {
		kv, err := n.JS.KeyValue(context.Background(), bus.BucketLeases)
		if err != nil {
			return false
		}
		e, err := kv.Get(context.Background(), bus.LeaseKey(busv1.ServiceAggregator))
		if err != nil {
			return false
		}
		var rec struct{ Holder string }
		if json.Unmarshal(e.Value(), &rec) != nil {
			return false
		}
		holder = rec.Holder
		return holder != ""
	})
	return holder
}

// An aggregator started before the bus is provisioned waits for it instead
// of exiting, then publishes.
func TestAnAggregatorStartedBeforeProvisioningWaits(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	waiting := make(chan struct{}, 16)
	c := aggregator.DefaultConfig()
	c.Leader.Identity, c.Settle = "early", 10*time.Millisecond
	c.Log = funcr.New(func(_, args string) {
		if strings.Contains(args, "waiting for the bus to be provisioned") {
			select {
			case waiting <- struct{}{}:
			default:
			}
		}
	}, funcr.Options{})
	go func() { done <- aggregator.RunWith(ctx, n.JS, c) }()
	//nolint:errcheck // waits for the run to end; its error is not what this cleanup checks
	t.Cleanup(func() { cancel(); <-done })
	for range 2 { // it looked for the bucket twice and is still running
		select {
		case err := <-done:
			t.Fatalf("the aggregator exited before the bus was provisioned: %v", err)
		case <-waiting:
		case <-time.After(20 * time.Second):
			t.Fatal("the aggregator never said it waits for provisioning")
		}
	}
	if err := bus.Provision(context.Background(), n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	markers(t, n)
	inv := busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: "team-a", Name: "inv", Generation: 1,
		DeletionPolicy: busv1.DeletionRetain, Bindings: []busv1.Binding{}}
	put(t, n, bus.BucketConfig, bus.ConfigKey(bus.ConfigRef{Kind: inv.Kind, Namespace: "team-a", Name: "inv"}), inv)
	putRow(t, n, "u1", 1)
	testenv.EventuallyTrue(t, 20*time.Second, "a snapshot with the row", func() bool {
		s, err := history.Last(context.Background(), n.JS, busv1.NamespacedName{Namespace: "team-a", Name: "inv"})
		return err == nil && s != nil && s.Event.ItemCount == 1
	})
}

// startBusWithInventory starts NATS, provisions the bus and configures the
// inventory team-a/inv, bound to no sink.
func startBusWithInventory(t *testing.T) *testenv.NATS {
	t.Helper()
	n := testenv.StartNATS(t)
	if err := bus.Provision(context.Background(), n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	markers(t, n)
	inv := busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: "team-a", Name: "inv", Generation: 1,
		DeletionPolicy: busv1.DeletionRetain, Bindings: []busv1.Binding{}}
	put(t, n, bus.BucketConfig, bus.ConfigKey(bus.ConfigRef{Kind: inv.Kind, Namespace: "team-a", Name: "inv"}), inv)
	return n
}

// markers writes the markers control and the collector write after their
// first pass: the config is complete, the rows are synced.
func markers(t *testing.T, n *testenv.NATS) {
	t.Helper()
	put(t, n, bus.BucketConfig, bus.ConfigCompleteKey, "2026-01-01T00:00:00Z")
	for i := range bus.DefaultCollectorShards {
		put(t, n, bus.BucketRows, bus.RowsSyncedShardKey(bus.DefaultCollectorShards, i), "2026-01-01T00:00:00Z")
	}
}
