package reconcile

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"

	"kollect.dev/kollect/api/v1alpha1"
)

// ScopeReconciler marks the honoured KollectScope of a namespace Ready and
// every other one Ready=False (ScopeConflict).
type ScopeReconciler struct {
	*Deps
}

// Reconcile compares the Scope with the namespace's honoured one.
func (r *ScopeReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	obj := &v1alpha1.KollectScope{}
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return res, nil
		}
		return res, err
	}
	before := obj.DeepCopy()
	defer func() { err = errors.Join(err, r.finish(ctx, before, obj)) }()
	h, err := r.Honoured(ctx, obj.Namespace)
	if err != nil {
		return res, err
	}
	if h != nil && h.UID != obj.UID {
		notReady(obj, v1alpha1.ReasonScopeConflict, fmt.Sprintf("KollectScope %s is older and is the one honoured in namespace %s", h.Name, obj.Namespace))
		return res, nil
	}
	ready(obj, "honoured in namespace "+obj.Namespace)
	return res, nil
}

// ClusterScopeReconciler marks the honoured KollectClusterScope Ready and
// every other one Ready=False (ScopeConflict).
type ClusterScopeReconciler struct {
	*Deps
}

// Reconcile compares the ClusterScope with the honoured one.
func (r *ClusterScopeReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	obj := &v1alpha1.KollectClusterScope{}
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return res, nil
		}
		return res, err
	}
	before := obj.DeepCopy()
	defer func() { err = errors.Join(err, r.finish(ctx, before, obj)) }()
	h, err := r.HonouredCluster(ctx)
	if err != nil {
		return res, err
	}
	if h != nil && h.UID != obj.UID {
		notReady(obj, v1alpha1.ReasonScopeConflict, fmt.Sprintf("KollectClusterScope %s is older and is the one honoured", h.Name))
		return res, nil
	}
	ready(obj, "honoured")
	return res, nil
}
