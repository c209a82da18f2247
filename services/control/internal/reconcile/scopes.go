package reconcile

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"

	"kollect.dev/kollect/api/v1alpha1"
)

// ScopeReconciler marks the honoured KollectScope of a namespace Ready and
// every other one Ready=False (ScopeConflict).
type ScopeReconciler struct {
	*Deps
}

// Reconcile compares the Scope with the namespace's honoured one.
func (r *ScopeReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return run(ctx, r.Deps, req, &v1alpha1.KollectScope{}, entry[*v1alpha1.KollectScope]{},
		func(ctx context.Context, obj *v1alpha1.KollectScope, _ *ctrl.Result) error {
			return r.honoured(ctx, obj, obj.Namespace)
		})
}

// ClusterScopeReconciler marks the honoured KollectClusterScope Ready and
// every other one Ready=False (ScopeConflict).
type ClusterScopeReconciler struct {
	*Deps
}

// Reconcile compares the ClusterScope with the honoured one.
func (r *ClusterScopeReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	return run(ctx, r.Deps, req, &v1alpha1.KollectClusterScope{}, entry[*v1alpha1.KollectClusterScope]{},
		func(ctx context.Context, obj *v1alpha1.KollectClusterScope, _ *ctrl.Result) error {
			return r.honoured(ctx, obj, "")
		})
}

// honoured makes a Scope of namespace ns (a ClusterScope when ns is "")
// Ready when it is the one honoured, and returns ScopeConflict otherwise.
func (d *Deps) honoured(ctx context.Context, obj statusObject, ns string) error {
	b, err := d.boundFor(ctx, ns)
	if err != nil {
		return err
	}
	where := ""
	if ns != "" {
		where = " in namespace " + ns
	}
	if b.rules != nil && b.uid != obj.GetUID() {
		return v1alpha1.Reasonf(v1alpha1.ReasonScopeConflict, "%s is older and is the one honoured%s", b.name, where)
	}
	ready(obj, "honoured"+where)
	return nil
}
