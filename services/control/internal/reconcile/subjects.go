package reconcile

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/access"
	"kollect.dev/kollect/services/control/internal/requester"
)

// indexSubject is each RBAC subject whose bindings decide a Target's
// access: "user:<name>" or "group:<name>" of the ServiceAccount it acts as
// and of its verified requester.
const indexSubject = "kollect.dev/subject"

// SubjectCache drops the cached answers about the identities a binding
// names; access.Cache implements it.
type SubjectCache interface {
	Invalidate(subjects []rbacv1.Subject)
}

// targetSubjects are the index values of t.
func (d *Deps) targetSubjects(t *v1alpha1.KollectTarget) []string {
	var ids []access.Identity
	name := t.Spec.ServiceAccountName
	if name == "" {
		name = d.Policy.DefaultServiceAccount
	}
	if name != "" {
		ids = append(ids, access.ServiceAccount(t.Namespace, name))
	}
	if d.Requesters != nil {
		_, o, _ := requester.Of(t, d.Policy.DefaultServiceAccount)
		if rec, ok := d.Requesters.Verify(o, t.Annotations); ok {
			ids = append(ids, rec.Identity())
		}
	}
	var out []string
	for _, id := range ids {
		out = append(out, "user:"+id.User)
		for _, g := range id.Groups {
			out = append(out, "group:"+g)
		}
	}
	return out
}

// subjectKey is the index value a binding's subject matches.
func subjectKey(s rbacv1.Subject) string {
	switch s.Kind {
	case rbacv1.UserKind:
		return "user:" + s.Name
	case rbacv1.GroupKind:
		return "group:" + s.Name
	case rbacv1.ServiceAccountKind:
		return "user:" + access.ServiceAccount(s.Namespace, s.Name).User
	}
	return ""
}

// bindingSubjects returns the subjects of a RoleBinding or
// ClusterRoleBinding.
func bindingSubjects(o client.Object) []rbacv1.Subject {
	switch b := o.(type) {
	case *rbacv1.RoleBinding:
		return b.Subjects
	case *rbacv1.ClusterRoleBinding:
		return b.Subjects
	}
	return nil
}

// targetsOfBinding maps a changed binding to the Targets whose
// ServiceAccount or requester (or one of their groups) it names, not to
// every Target, and first drops the cached answers about those subjects
// so the reconcile asks the API server. controller-runtime calls it with
// both the old and the new binding of an update, so a subject removed is
// reviewed again too.
func targetsOfBinding(c client.Client, cache SubjectCache) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
		subjects := bindingSubjects(o)
		if cache != nil {
			cache.Invalidate(subjects)
		}
		seen := map[client.ObjectKey]bool{}
		var out []reconcile.Request
		for _, s := range subjects {
			key := subjectKey(s)
			if key == "" {
				continue
			}
			var l v1alpha1.KollectTargetList
			if err := c.List(ctx, &l, client.MatchingFields{indexSubject: key}); err != nil {
				ctrl.LoggerFrom(ctx).Error(err, "list dependents", "changed", client.ObjectKeyFromObject(o))
				continue
			}
			for i := range l.Items {
				k := client.ObjectKeyFromObject(&l.Items[i])
				if !seen[k] {
					seen[k] = true
					out = append(out, reconcile.Request{NamespacedName: k})
				}
			}
		}
		return out
	})
}
