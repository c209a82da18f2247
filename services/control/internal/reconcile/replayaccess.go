package reconcile

import (
	"context"
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/access"
)

// mayReplay checks, at every reconcile and before the inventory is read,
// the rule admission checks for the requesting user: a replay re-sends an
// inventory's past data, so it runs only while the identity it acts as may
// get that inventory. Reconcile does not know who created the object, so
// that identity is the replay namespace's ServiceAccount
// (--default-service-account, the one a Target without
// spec.serviceAccountName acts as): only its grants, which a tenant cannot
// raise above its own, let the replay run. It holds with the webhook off
// and is reviewed again at each reconcile, so a revoked grant stops the
// next one.
//
// A refusal is an AccessDenied *v1alpha1.ReasonError whose message is the
// same whether the inventory exists or not, and says nothing of its
// bindings or history: a denied replay is no oracle.
func (r *ReplayReconciler) mayReplay(ctx context.Context, obj *v1alpha1.KollectReplay) error {
	kind, ns := string(busv1.KindInventory), obj.Namespace
	if obj.Spec.InventoryRef.Kind == string(busv1.KindClusterInventory) {
		kind, ns = string(busv1.KindClusterInventory), ""
	}
	sa := r.Policy.DefaultServiceAccount
	if sa == "" {
		return v1alpha1.Reasonf(v1alpha1.ReasonAccessDenied,
			"spec.inventoryRef: no ServiceAccount for the replay to act as (the operator sets no --default-service-account)")
	}
	res, _, err := r.Access.Mapping(v1alpha1.GroupVersion.WithKind(kind))
	if err != nil {
		return err
	}
	ok, err := r.Access.MayGet(ctx, access.ServiceAccount(obj.Namespace, sa), res, ns, obj.Spec.InventoryRef.Name)
	if err != nil {
		return fmt.Errorf("review replay %s/%s: %w", obj.Namespace, obj.Name, err)
	}
	if ok {
		return nil
	}
	return v1alpha1.Reasonf(v1alpha1.ReasonAccessDenied,
		"spec.inventoryRef: ServiceAccount %s/%s, as which the replay runs, may not get %s %s; grant it get on the inventory to replay it",
		obj.Namespace, sa, kind, obj.Spec.InventoryRef.Name)
}
