package aggregator_test

import (
	"context"
	"encoding/json"
	"strings"
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
