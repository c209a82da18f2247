package reconcile

import (
	"cmp"
	"context"
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
// object goes, so the aggregator applies deletionPolicy), suspend, the
// namespace's quotas (an inventory over one has no entry), resolve
// bindings within the Scope, write the entry, fold reports.
func (r *InventoryReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	key := ref(busv1.KindInventory, req.Namespace, req.Name)
	var c compiledInventory
	return run(ctx, r.Deps, req, &v1alpha1.KollectInventory{},
		entry[*v1alpha1.KollectInventory]{ref: &key, finalizer: true, suspended: func(o *v1alpha1.KollectInventory) string {
			return suspended(o.Spec.Suspend, "exports are paused")
		}},
		func(ctx context.Context, obj *v1alpha1.KollectInventory, _ *ctrl.Result) (err error) {
			c, err = r.compile(ctx, obj)
			return err
		},
		func(ctx context.Context, _ *v1alpha1.KollectInventory, _ *ctrl.Result) error {
			return r.putConfig(ctx, key, c.cfg)
		},
		func(_ context.Context, obj *v1alpha1.KollectInventory, _ *ctrl.Result) error {
			readyInventory(obj, fmt.Sprintf("exporting to %d of %d sinks", len(c.binds), len(c.states)), c)
			foldInventory(obj, busv1.KindInventory, &obj.Status, c.states, r.Reports)
			r.announceRepairs(obj, busv1.KindInventory)
			return nil
		})
}

func (r *InventoryReconciler) compile(ctx context.Context, obj *v1alpha1.KollectInventory) (compiledInventory, error) {
	if err := bindingShape(obj); err != nil {
		return compiledInventory{}, err
	}
	b, err := r.boundFor(ctx, obj.Namespace)
	if err != nil {
		return compiledInventory{}, err
	}
	if err := r.inventoryQuota(ctx, obj, b); err != nil {
		return compiledInventory{}, err
	}
	return r.compileInventory(ctx, busv1.InventoryConfig{
		Kind: busv1.KindInventory, Namespace: obj.Namespace, Name: obj.Name, UID: string(obj.UID),
		Generation: obj.Generation, DeletionPolicy: deletionPolicy(obj.Spec.DeletionPolicy),
		RevisionFloor: revisionFloor(&obj.Status), History: policy.HistoryLimits(obj.Spec.History),
	}, inventoryWants(obj), b)
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

// bindingShape returns an InvalidSpec error naming the first sink ref that
// is neither a name nor an object with a name (the schema cannot type a
// string-or-object value).
func bindingShape(obj *v1alpha1.KollectInventory) error {
	for field, refs := range map[string][]v1alpha1.SinkBinding{"snapshotSinkRefs": obj.Spec.SnapshotSinkRefs,
		"databaseSinkRefs": obj.Spec.DatabaseSinkRefs, "eventSinkRefs": obj.Spec.EventSinkRefs} {
		for i, b := range refs {
			if err := b.DecodeError(); err != nil {
				return v1alpha1.Reasonf(v1alpha1.ReasonInvalidSpec, "spec.%s[%d]: %v", field, i, err)
			}
		}
	}
	return nil
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
