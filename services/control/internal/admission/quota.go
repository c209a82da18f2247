package admission

import (
	"context"
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kollect.dev/kollect/api/v1alpha1"
)

// honoured is the namespace's Scope as the checks read it: its rules and
// quotas (nil without a Scope) and its name for messages.
type honoured struct {
	rules  *v1alpha1.ScopeRules
	quotas *v1alpha1.ScopeQuotas
	name   string
}

func honouredOf(s *v1alpha1.KollectScope) honoured {
	if s == nil {
		return honoured{}
	}
	return honoured{rules: &s.Spec.ScopeRules, quotas: &s.Spec.ScopeQuotas, name: "KollectScope " + s.Name}
}

// inventoryQuota refuses a new inventory when its namespace holds its
// quota of inventories already, and an inventory whose bindings would take
// the namespace's past its quota of bindings (on an update, only when its
// bindings grow). Reconcile applies the same quotas again.
func (v *Validator) inventoryQuota(ctx context.Context, req admission.Request, inv *v1alpha1.KollectInventory, h honoured) (string, error) {
	invs := v.Quotas.InventoryLimit(h.quotas, h.name)
	binds := v.Quotas.BindingLimit(h.quotas, h.name)
	if invs.Max <= 0 && binds.Max <= 0 {
		return "", nil
	}
	var list v1alpha1.KollectInventoryList
	if err := v.Reader.List(ctx, &list, client.InNamespace(inv.Namespace)); err != nil {
		return "", fmt.Errorf("list inventories in %s: %w", inv.Namespace, err)
	}
	var others, otherBindings int64
	for i := range list.Items {
		o := &list.Items[i]
		if o.Name == inv.Name || o.DeletionTimestamp != nil {
			continue
		}
		others++
		otherBindings += bindingCount(&o.Spec)
	}
	if req.Operation == admissionv1.Create && !invs.Allows(others+1) {
		return fmt.Sprintf("namespace %s has %d KollectInventories, the limit is %s", inv.Namespace, others, invs), nil
	}
	own := bindingCount(&inv.Spec)
	if binds.Allows(otherBindings+own) || (req.Operation == admissionv1.Update && own <= oldBindings(req)) {
		return "", nil
	}
	return fmt.Sprintf("namespace %s would hold %d sink bindings with this inventory's %d (its other inventories hold %d), the limit is %s",
		inv.Namespace, otherBindings+own, own, otherBindings, binds), nil
}

// oldBindings is the binding count of the inventory an update replaces.
func oldBindings(req admission.Request) int64 {
	var old v1alpha1.KollectInventory
	if err := json.Unmarshal(req.OldObject.Raw, &old); err != nil {
		return 0
	}
	return bindingCount(&old.Spec)
}

// bindingCount is the inventory's sink refs of every family.
func bindingCount(s *v1alpha1.KollectInventorySpec) int64 {
	return int64(len(s.SnapshotSinkRefs) + len(s.DatabaseSinkRefs) + len(s.EventSinkRefs))
}

// replayQuota refuses a new replay while its namespace has its quota of
// replays in flight (neither Succeeded nor Failed). Reconcile holds one
// admitted over it (webhook off, or a race) Pending until a slot frees.
func (v *Validator) replayQuota(ctx context.Context, r *v1alpha1.KollectReplay) (string, error) {
	scope, err := v.Scopes.Honoured(ctx, r.Namespace)
	if err != nil {
		return "", err
	}
	h := honouredOf(scope)
	limit := v.Quotas.ReplayLimit(h.quotas, h.name)
	if limit.Max <= 0 {
		return "", nil
	}
	var list v1alpha1.KollectReplayList
	if err := v.Reader.List(ctx, &list, client.InNamespace(r.Namespace)); err != nil {
		return "", fmt.Errorf("list replays in %s: %w", r.Namespace, err)
	}
	var inFlight int64
	for _, o := range list.Items {
		if o.Name != r.Name && o.DeletionTimestamp == nil && o.Status.Phase != v1alpha1.ReplaySucceeded && o.Status.Phase != v1alpha1.ReplayFailed {
			inFlight++
		}
	}
	if limit.Allows(inFlight + 1) {
		return "", nil
	}
	return fmt.Sprintf("namespace %s has %d KollectReplays in flight (neither Succeeded nor Failed), the limit is %s; "+
		"create it again once one has finished", r.Namespace, inFlight, limit), nil
}
