package reconcile

import (
	"context"
	"slices"
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
	// capped says, one line per spec.history field, what the Scope's
	// maxHistory or the operator's cap lowered.
	capped []string
}

// compileInventory is the compile path both inventory kinds share: every
// sink is in a namespace the (Cluster)Scope lets it reference, and the
// sinks resolve into bindings within the Scope. cfg holds what the kind's
// own step filled in (History among it); its bindings, floor, history cap
// (the lower of the Scope's and the operator's, field by field) and the
// Scope's namespace quota are set here. Why the
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
	ceiling := d.Policy.Quotas.HistoryCeiling(b.rules, b.name)
	cfg.HistoryCap, cfg.NamespaceQuota = ceiling.Cap, policy.NamespaceQuota(b.quotas)
	return compiledInventory{cfg: cfg, bindings: bs, capped: ceiling.Over(cfg.History)}, nil
}

// readyInventory sets an inventory's Ready=True: Succeeded with msg, or
// ScopeIntervalRaised naming each interval the Scope's floor or the
// operator's (--min-export-interval) raised, or
// ScopeHistoryCapped naming each spec.history field the Scope's maxHistory
// or the operator's cap lowered (the message names both when both
// happened).
func readyInventory(obj statusObject, msg string, c compiledInventory) {
	notes := append(slices.Clone(c.raised), c.capped...)
	switch {
	case len(c.raised) > 0:
		set(obj, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonScopeIntervalRaised, msg+"; "+strings.Join(notes, "; "))
	case len(c.capped) > 0:
		set(obj, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonScopeHistoryCapped, msg+"; "+strings.Join(notes, "; "))
	default:
		ready(obj, msg)
	}
}
