package exporter

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter/backend"
)

func TestSweepStopsOnlyIdleWorkersOfBindingsThatAreGone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg := prometheus.NewRegistry()
	rt := &runtime{ctx: ctx, workers: map[bindingKey]*worker{}, configs: newConfigs(busv1.FamilySnapshot, nil, nil, backend.CredentialPolicy{}),
		metrics: newMetrics(reg, "snapshot")}
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
	kept := busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-a", Name: "kept"}
	removed := busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-a", Name: "removed"}
	busy := busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-a", Name: "busy"}
	rt.configs.inventories[inv] = busv1.InventoryConfig{Bindings: []busv1.Binding{{SinkRef: kept}}}
	for _, ref := range []busv1.SinkRef{kept, removed, busy} {
		rt.worker(inv, ref)
		rt.metrics.sinkCurrent(busv1.SinkConfig{Namespace: ref.Namespace, Name: ref.Name, Type: "memory"}, inv, time.Now())
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
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var bindings []string
	for _, mf := range mfs {
		if mf.GetName() == NameBindingLastSuccess {
			for _, m := range mf.GetMetric() {
				for _, lp := range m.GetLabel() {
					if lp.GetName() == "sink" {
						bindings = append(bindings, lp.GetValue())
					}
				}
			}
		}
	}
	slices.Sort(bindings)
	if !slices.Equal(bindings, []string{"busy", "kept"}) {
		t.Errorf("binding last-success series of the sinks %v, want busy and kept (the swept binding's gone)", bindings)
	}
	rt.workers[bindingKey{inv, busy}].current = 0
	for _, w := range rt.workers {
		w.stop()
	}
	rt.mu.Unlock()
	rt.wg.Wait()
	rt.mu.Lock()
}
