package reconcile

import (
	"context"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/policy"
)

// compiledInventory is an inventory of either kind compiled into its entry.
type compiledInventory struct {
	cfg busv1.InventoryConfig
	bindings
}

// compileInventory is the compile path both inventory kinds share: every
// sink is in a namespace the (Cluster)Scope lets it reference, and the
// sinks resolve into bindings within the Scope. cfg holds what the kind's
// own step filled in; its bindings and floor are set here. Why the
// inventory cannot run is a *v1alpha1.ReasonError.
func (d *Deps) compileInventory(ctx context.Context, cfg busv1.InventoryConfig, ws []wanted, b bound) (compiledInventory, error) {
	for _, w := range ws {
		if !b.allowsStaticRef(w.sink.Namespace) {
			return compiledInventory{}, v1alpha1.Reasonf(v1alpha1.ReasonScopeStaticRefDenied,
				"sink %s: %s does not allow references to namespace %s", w.name, b.name, w.sink.Namespace)
		}
	}
	bs, err := d.resolveBindings(ctx, ws, b)
	if err != nil {
		return compiledInventory{}, err
	}
	cfg.Bindings, cfg.MinExportInterval = sortBindings(bs.binds), busv1.Duration{Duration: policy.Floor(b.rules)}
	return compiledInventory{cfg: cfg, bindings: bs}, nil
}

// readyInventory sets an inventory's Ready=True: Succeeded with msg, or
// ScopeIntervalRaised naming each interval the Scope's floor raised.
func readyInventory(obj statusObject, msg string, c compiledInventory) {
	if len(c.raised) == 0 {
		ready(obj, msg)
		return
	}
	set(obj, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonScopeIntervalRaised, msg+"; "+strings.Join(c.raised, "; "))
}
