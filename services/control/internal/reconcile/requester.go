package reconcile

import (
	"context"
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/requester"
)

// requesterAllows checks, from stored facts only, that whoever chose the
// identity obj uses may use it: the requester the webhook sealed into its
// annotations for the current spec may impersonate the ServiceAccount a
// Target names and get every Secret a sink names. It runs at every
// reconcile, so a requester's revoked right stops the object, and it holds
// with the webhook off: an object without a verified requester is refused
// (RequesterUnverified). Objects choosing nothing (no serviceAccountName or
// the default one, no Secret) need no requester. Nil Requesters (the
// operator's --verify-requesters=false) skips the check.
func (d *Deps) requesterAllows(ctx context.Context, obj client.Object) error {
	if d.Requesters == nil {
		return nil
	}
	c, o, ok := requester.Of(obj, d.Policy.DefaultServiceAccount)
	if !ok || c.Empty() {
		return nil
	}
	rec, ok := d.Requesters.Verify(o, obj.GetAnnotations())
	if !ok {
		return v1alpha1.Reasonf(v1alpha1.ReasonRequesterUnverified,
			"%s: no requester recorded by the webhook for the current spec; choosing %s needs one: "+
				"apply the object through the webhook, or annotate it with %s through the webhook as a user who may use it",
			what(c), what(c), v1alpha1.AnnotationVerifyRequester)
	}
	msg, err := requester.Denial(ctx, d.Access, rec.Identity(), obj.GetNamespace(), c)
	if err != nil {
		return fmt.Errorf("review the requester of %s %s/%s: %w", o.Kind, o.Namespace, o.Name, err)
	}
	if msg != "" {
		return &v1alpha1.ReasonError{Reason: v1alpha1.ReasonRequesterDenied, Err: errors.New(msg)}
	}
	return nil
}

func what(c requester.Choice) string {
	if c.ServiceAccount != "" {
		return "spec.serviceAccountName"
	}
	return "a Secret reference"
}

// requesterReach checks that a Target's recorded requester may list the
// Profile's kind wherever the Target reaches beyond its own namespace: the
// review the webhook makes when the Profile exists at admission, made
// again at every reconcile so that a Target created before its Profile is
// held to it once the Profile arrives. A Target without a verified record
// (written without the webhook) is bounded by its ServiceAccount's RBAC
// alone, which grantFor reviews.
func (r *TargetReconciler) requesterReach(ctx context.Context, obj *v1alpha1.KollectTarget, t compiledTarget) error {
	if r.Requesters == nil {
		return nil
	}
	_, o, _ := requester.Of(obj, r.Policy.DefaultServiceAccount)
	rec, ok := r.Requesters.Verify(o, obj.GetAnnotations())
	if !ok {
		return nil
	}
	res, _, err := r.Access.Mapping(t.gvk)
	if err != nil {
		return nil //nolint:nilerr // an unserved kind is grantFor's condition
	}
	for _, ns := range requester.Reach(obj) {
		may, err := r.Access.MayList(ctx, rec.Identity(), res, ns)
		if err != nil {
			return fmt.Errorf("review the requester of KollectTarget %s/%s: %w", obj.Namespace, obj.Name, err)
		}
		if may {
			continue
		}
		if ns == "" {
			return v1alpha1.Reasonf(v1alpha1.ReasonRequesterDenied, "spec: %s, who set this Target's spec, may not list %s cluster-wide, "+
				"which selecting namespaces by label or every namespace needs; set includedNamespaces: [%s]", rec.User, res.Resource, obj.Namespace)
		}
		return v1alpha1.Reasonf(v1alpha1.ReasonRequesterDenied, "spec.includedNamespaces: %s, who set this Target's spec, may not list %s in namespace %s",
			rec.User, res.Resource, ns)
	}
	return nil
}
