package exporter_test

import (
	"context"
	"encoding/json"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// TestTheRuntimeOpensTheBusAgainAfterItsStateIsLost deletes every stream
// under a running exporter (what a NATS store wiped or an operator's `nats
// stream rm` leaves) and provisions the bus again, as control does: the
// runtime must not stop as if asked to (it used to return nil, and the
// process exited 0), and must deliver the next event.
func TestTheRuntimeOpensTheBusAgainAfterItsStateIsLost(t *testing.T) {
	e := newEnv(t, "good")
	stop := e.startStoppable(nil)
	defer stop()
	e.publish(1, busv1.ReasonChange, []string{"good"}, "a")
	waitFor(t, "revision 1 in the sink", func() bool { return e.stored("good") == 1 })

	ctx := context.Background()
	lister := e.n.JS.StreamNames(ctx)
	var names []string
	for n := range lister.Name() {
		names = append(names, n)
	}
	for _, n := range names {
		if err := e.n.JS.DeleteStream(ctx, n); err != nil {
			t.Fatalf("delete stream %s: %v", n, err)
		}
	}
	if err := bus.Provision(ctx, e.n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	// control puts every config again (its bus guardian does).
	spec, _ := json.Marshal(memSpec{SecretRef: "good"})
	e.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindSnapshotSink, Namespace: "team-a", Name: "good"}),
		busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "memory", Namespace: "team-a", Name: "good", Generation: 1, Cluster: "east", Spec: spec})
	e.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name}),
		busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name, Generation: 1,
			Bindings: []busv1.Binding{binding("good")}})
	e.publish(2, busv1.ReasonChange, []string{"good"}, "a", "b")
	waitFor(t, "revision 2 in the sink after the bus was provisioned again", func() bool { return e.stored("good") == 2 })
}
