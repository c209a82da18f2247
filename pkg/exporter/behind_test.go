package exporter_test

import (
	"context"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// TestAnEventForABindingTheConfigDoesNotKnowYetWaitsForIt covers M11: the
// exporter's config watch and the aggregator race, so the first event of a
// new binding may arrive before the config that lists it. It used to be
// acknowledged away (lost until the next change); it is delivered once the
// config catches up.
func TestAnEventForABindingTheConfigDoesNotKnowYetWaitsForIt(t *testing.T) {
	e := newEnv(t, "good", "late")
	// The exporter's view: generation 1, bound to "good" only.
	ic := busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name, Generation: 1,
		Bindings: []busv1.Binding{binding("good")}}
	key := bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name})
	e.put(key, ic)
	e.start(nil)
	waitFor(t, "the exporter's config", func() bool {
		e.publish(1, busv1.ReasonChange, []string{"good"}, "a")
		return e.stored("good") == 1
	})
	// Generation 2 adds "late"; the aggregator's event comes first.
	ev := e.event(2, busv1.ReasonChange, []string{"good", "late"}, "a", "b")
	ev.Generation = 2
	e.send(ev)
	cons, err := e.n.JS.Consumer(context.Background(), bus.StreamSnapshots, bus.ExporterConsumer(busv1.FamilySnapshot))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the event delivered to the exporter before its config", func() bool {
		info, err := cons.Info(context.Background())
		return err == nil && info.Delivered.Stream >= 2
	})
	ic.Generation, ic.Bindings = 2, []busv1.Binding{binding("good"), binding("late")}
	e.put(key, ic)
	waitFor(t, "the new binding's first export", func() bool { return e.stored("late") == 2 && e.stored("good") == 2 })
}
