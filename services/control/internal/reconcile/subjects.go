package reconcile

import (
	"context"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
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
		out = append(out, access.IdentityKeys(id)...)
	}
	return out
}

// bindingSubjects returns the subjects of a RoleBinding or
// ClusterRoleBinding, a ServiceAccount without a namespace given the
// binding's (as the API server reads it).
func bindingSubjects(o client.Object) []rbacv1.Subject {
	var ns string
	var subjects []rbacv1.Subject
	switch b := o.(type) {
	case *rbacv1.RoleBinding:
		ns, subjects = b.Namespace, b.Subjects
	case *rbacv1.ClusterRoleBinding:
		subjects = b.Subjects
	}
	out := make([]rbacv1.Subject, 0, len(subjects))
	for _, s := range subjects {
		if s.Kind == rbacv1.ServiceAccountKind && s.Namespace == "" {
			s.Namespace = ns
		}
		out = append(out, s)
	}
	return out
}

// targetsOfBinding maps a changed binding to the Targets whose
// ServiceAccount or requester (or one of their groups) it names, not to
// every Target, and first drops the cached answers about those subjects
// so the reconcile asks again. It gets both the old and the new binding of
// an update, so a subject removed is reviewed again too.
func targetsOfBinding(c client.Client, cache SubjectCache) handler.EventHandler {
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q queue) {
			enqueueSubjects(ctx, c, cache, q, bindingSubjects(e.Object))
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q queue) {
			enqueueSubjects(ctx, c, cache, q, append(bindingSubjects(e.ObjectOld), bindingSubjects(e.ObjectNew)...))
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q queue) {
			enqueueSubjects(ctx, c, cache, q, bindingSubjects(e.Object))
		},
	}
}

// targetsOfRole maps a Role or ClusterRole created, edited in place or
// deleted to the Targets whose identities the bindings referring to it
// name, as if those bindings had changed: a rule removed from a role is
// seen at once, not at the periodic re-check.
func targetsOfRole(c client.Client, cache SubjectCache) handler.EventHandler {
	enqueue := func(ctx context.Context, q queue, o client.Object) {
		ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: o.GetName()}
		if _, ok := o.(*rbacv1.Role); ok {
			ref.Kind = "Role"
		}
		key := access.RoleKey(o.GetNamespace(), ref)
		var subjects []rbacv1.Subject
		var rbs rbacv1.RoleBindingList
		if err := c.List(ctx, &rbs, client.MatchingFields{access.IndexBindingRole: key}); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "list the RoleBindings of a role", "role", key)
		}
		for i := range rbs.Items {
			subjects = append(subjects, bindingSubjects(&rbs.Items[i])...)
		}
		if ref.Kind == "ClusterRole" {
			var crbs rbacv1.ClusterRoleBindingList
			if err := c.List(ctx, &crbs, client.MatchingFields{access.IndexBindingRole: key}); err != nil {
				ctrl.LoggerFrom(ctx).Error(err, "list the ClusterRoleBindings of a role", "role", key)
			}
			for i := range crbs.Items {
				subjects = append(subjects, bindingSubjects(&crbs.Items[i])...)
			}
		}
		enqueueSubjects(ctx, c, cache, q, subjects)
	}
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q queue) { enqueue(ctx, q, e.Object) },
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q queue) {
			if !rulesEqual(e.ObjectOld, e.ObjectNew) {
				enqueue(ctx, q, e.ObjectNew)
			}
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q queue) { enqueue(ctx, q, e.Object) },
	}
}

// rulesEqual reports whether two versions of a Role or ClusterRole grant
// the same: a change of labels, annotations or managed fields (or a
// resync) re-checks no Target.
func rulesEqual(a, b client.Object) bool {
	switch a := a.(type) {
	case *rbacv1.Role:
		b, ok := b.(*rbacv1.Role)
		return ok && equality.Semantic.DeepEqual(a.Rules, b.Rules)
	case *rbacv1.ClusterRole:
		b, ok := b.(*rbacv1.ClusterRole)
		return ok && equality.Semantic.DeepEqual(a.Rules, b.Rules)
	}
	return false
}

// enqueueSubjects drops the cached answers about subjects and queues the
// Targets whose identities they name. Targets reached only through a
// group that spans namespaces (system:serviceaccounts,
// system:authenticated, any group of users) are queued at low priority:
// such a change reviews many Targets, and must not delay one whose own
// ServiceAccount, user or namespace group a binding names.
func enqueueSubjects(ctx context.Context, c client.Client, cache SubjectCache, q queue, subjects []rbacv1.Subject) {
	if len(subjects) == 0 {
		return
	}
	if cache != nil {
		cache.Invalidate(subjects)
	}
	broad := map[client.ObjectKey]bool{}
	for _, s := range subjects {
		for _, k := range targetsNaming(ctx, c, s) {
			if prev, seen := broad[k]; !seen || prev {
				broad[k] = broadGroup(s)
			}
		}
	}
	for k, b := range broad {
		r := reconcile.Request{NamespacedName: k}
		if b {
			low(q).Add(r)
		} else {
			q.Add(r)
		}
	}
}

// broadGroup reports whether s is a group other than one namespace's
// ServiceAccounts.
func broadGroup(s rbacv1.Subject) bool {
	return s.Kind == rbacv1.GroupKind && !strings.HasPrefix(s.Name, "system:serviceaccounts:")
}

// targetsNaming lists the Targets whose identities s names.
func targetsNaming(ctx context.Context, c client.Client, s rbacv1.Subject) []client.ObjectKey {
	key := access.SubjectKey(s.Namespace, s)
	if key == "" {
		return nil
	}
	var l v1alpha1.KollectTargetList
	if err := c.List(ctx, &l, client.MatchingFields{indexSubject: key}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "list the Targets a binding names", "subject", key)
		return nil
	}
	out := make([]client.ObjectKey, 0, len(l.Items))
	for i := range l.Items {
		out = append(out, client.ObjectKeyFromObject(&l.Items[i]))
	}
	return out
}
