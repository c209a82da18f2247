package exporter

import (
	"context"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

func TestSweepStopsOnlyIdleWorkersOfBindingsThatAreGone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rt := &runtime{ctx: ctx, workers: map[bindingKey]*worker{}, configs: newConfigs(busv1.FamilySnapshot, nil, nil, CredentialPolicy{})}
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
	kept := busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-a", Name: "kept"}
	removed := busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-a", Name: "removed"}
	busy := busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-a", Name: "busy"}
	rt.configs.inventories[inv] = busv1.InventoryConfig{Bindings: []busv1.Binding{{SinkRef: kept}}}
	for _, ref := range []busv1.SinkRef{kept, removed, busy} {
		rt.worker(inv, ref)
	}
	rt.mu.Lock()
	for _, w := range rt.workers {
		w.active = time.Now().Add(-time.Hour)
	}
	rt.workers[bindingKey{inv, busy}].current = 7 // a write in flight
	rt.mu.Unlock()

	rt.sweep(time.Now().Add(-time.Minute))

	rt.mu.Lock()
	defer rt.mu.Unlock()
	for ref, want := range map[busv1.SinkRef]bool{kept: true, removed: false, busy: true} {
		if _, ok := rt.workers[bindingKey{inv, ref}]; ok != want {
			t.Errorf("worker of %s present = %v, want %v", ref.Name, ok, want)
		}
	}
	rt.workers[bindingKey{inv, busy}].current = 0
	for _, w := range rt.workers {
		w.stop()
	}
	rt.mu.Unlock()
	rt.wg.Wait()
	rt.mu.Lock()
}
