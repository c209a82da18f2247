package reconcile

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
)

// Resync reconciles every object of every kind that has an entry in the
// config bucket, by calling its reconciler directly, so that a config
// bucket that was lost, re-created or emptied holds every entry again. It
// returns the errors of the objects that failed; the caller retries the
// whole pass.
func Resync(ctx context.Context, d *Deps, opts extract.Options) error {
	type kind struct {
		list client.ObjectList
		rec  reconcile.Reconciler
	}
	kinds := []kind{
		{&v1alpha1.KollectTargetList{}, &TargetReconciler{Deps: d, Extract: opts}},
		{&v1alpha1.KollectClusterTargetList{}, &ClusterTargetReconciler{Deps: d, Extract: opts}},
		{&v1alpha1.KollectInventoryList{}, &InventoryReconciler{Deps: d}},
		{&v1alpha1.KollectClusterInventoryList{}, &ClusterInventoryReconciler{Deps: d}},
	}
	for _, f := range busv1.Families() {
		kinds = append(kinds, kind{sinkList(f), &SinkReconciler{Deps: d, Family: f}})
	}
	var errs []error
	for _, k := range kinds {
		if err := d.Client.List(ctx, k.list); err != nil {
			errs = append(errs, fmt.Errorf("list %T: %w", k.list, err))
			continue
		}
		forEach(k.list, func(o client.Object) {
			req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(o)}
			// A conflict means the object's own controller wrote it
			// meanwhile; that reconcile put its config too.
			if _, err := k.rec.Reconcile(ctx, req); err != nil && !apierrors.IsConflict(err) {
				errs = append(errs, fmt.Errorf("reconcile %T %s: %w", o, req.NamespacedName, err))
			}
		})
	}
	return errors.Join(errs...)
}

func sinkList(f busv1.Family) client.ObjectList {
	switch f {
	case busv1.FamilySnapshot:
		return &v1alpha1.KollectSnapshotSinkList{}
	case busv1.FamilyDatabase:
		return &v1alpha1.KollectDatabaseSinkList{}
	}
	return &v1alpha1.KollectEventSinkList{}
}

// revisionFloor is the highest revision any sink of the inventory holds, as
// its status recorded: the aggregator never continues below it.
func revisionFloor(st *v1alpha1.InventoryStatus) uint64 {
	var floor int64
	for _, s := range st.SinkExports {
		floor = max(floor, s.LastRevision)
	}
	return uint64(floor)
}
