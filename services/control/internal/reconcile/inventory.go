package reconcile

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	ctrl "sigs.k8s.io/controller-runtime"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/policy"
)

// InventoryReconciler compiles KollectInventories into config entries with
// resolved sink bindings.
type InventoryReconciler struct {
	*Deps
}

// Reconcile runs the steps: finalizer (the entry is deleted before the
// object goes, so the aggregator applies deletionPolicy), suspend, resolve
// bindings within the Scope, write the entry, fold reports.
func (r *InventoryReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	key := ref(busv1.KindInventory, req.Namespace, req.Name)
	obj := &v1alpha1.KollectInventory{}
	if ok, err := r.admit(ctx, req.NamespacedName, obj, key); !ok {
		return res, err
	}
	before := obj.DeepCopy()
	defer func() { err = errors.Join(err, r.finish(ctx, before, obj)) }()
	if obj.Spec.Suspend {
		notReady(obj, v1alpha1.ReasonSuspended, "spec.suspend is true; exports are paused")
		return res, r.suspendConfig(ctx, key, obj.Generation)
	}
	if msg := bindingShape(obj); msg != "" {
		notReady(obj, v1alpha1.ReasonInvalidSpec, msg)
		return res, r.deleteConfig(ctx, key)
	}
	scope, err := r.Honoured(ctx, obj.Namespace)
	if err != nil {
		return res, err
	}
	var rules *v1alpha1.ScopeRules
	scopeName := ""
	if scope != nil {
		rules, scopeName = &scope.Spec, "KollectScope "+scope.Name
	}
	binds, states, err := r.resolveBindings(ctx, inventoryWants(obj), rules, scopeName)
	if err != nil {
		return res, err
	}
	cfg := busv1.InventoryConfig{
		Kind: busv1.KindInventory, Namespace: obj.Namespace, Name: obj.Name, UID: string(obj.UID),
		Generation: obj.Generation, DeletionPolicy: deletionPolicy(obj.Spec.DeletionPolicy),
		Bindings: sortBindings(binds), MinExportInterval: busv1.Duration{Duration: policy.Floor(rules)},
		RevisionFloor: revisionFloor(&obj.Status),
	}
	if err := r.putConfig(ctx, key, cfg); err != nil {
		return res, err
	}
	ready(obj, fmt.Sprintf("exporting to %d of %d sinks", len(binds), len(states)))
	foldInventory(obj, busv1.KindInventory, &obj.Status, states, r.Reports)
	r.announceRepairs(obj, busv1.KindInventory)
	return res, nil
}

func inventoryWants(obj *v1alpha1.KollectInventory) []wanted {
	var out []wanted
	lists := map[busv1.Family][]v1alpha1.SinkBinding{
		busv1.FamilySnapshot: obj.Spec.SnapshotSinkRefs,
		busv1.FamilyDatabase: obj.Spec.DatabaseSinkRefs,
		busv1.FamilyEvent:    obj.Spec.EventSinkRefs,
	}
	for _, f := range busv1.Families() {
		for _, b := range lists[f] {
			s := busv1.SinkRef{Family: f, Namespace: obj.Namespace, Name: b.Name}
			out = append(out, wanted{sink: s, name: s.BindingName(), interval: b.ExportMinInterval,
				maxBytes: b.MaxExportBytes, invDefault: obj.Spec.ExportMinInterval, invBytes: obj.Spec.MaxExportBytes})
		}
	}
	return out
}

// bindingShape names the first sink ref that is neither a name nor an
// object with a name (the schema cannot type a string-or-object value).
func bindingShape(obj *v1alpha1.KollectInventory) string {
	for field, refs := range map[string][]v1alpha1.SinkBinding{"snapshotSinkRefs": obj.Spec.SnapshotSinkRefs,
		"databaseSinkRefs": obj.Spec.DatabaseSinkRefs, "eventSinkRefs": obj.Spec.EventSinkRefs} {
		for i, b := range refs {
			if err := b.DecodeError(); err != nil {
				return fmt.Sprintf("spec.%s[%d]: %v", field, i, err)
			}
		}
	}
	return ""
}

func deletionPolicy(p v1alpha1.DeletionPolicy) busv1.DeletionPolicy {
	if p == v1alpha1.DeletionDelete {
		return busv1.DeletionDelete
	}
	return busv1.DeletionRetain
}

func sortBindings(b []busv1.Binding) []busv1.Binding {
	if b == nil {
		return []busv1.Binding{}
	}
	slices.SortFunc(b, func(x, y busv1.Binding) int {
		return cmp.Or(cmp.Compare(x.Family, y.Family), cmp.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Name, y.Name))
	})
	return b
}
