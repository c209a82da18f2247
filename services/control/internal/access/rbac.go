package access

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/component-helpers/auth/rbac/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RBAC answers access questions from informer caches of Roles,
// ClusterRoles, RoleBindings and ClusterRoleBindings, the way the API
// server's RBAC authorizer does: an identity may do what a rule of a role
// bound to it (as its user, one of its groups or, for a ServiceAccount
// subject, its name) allows, cluster-wide through a ClusterRoleBinding or
// in a namespace through a RoleBinding there. It asks the API server
// nothing, so re-checking every Target after a Role edit or a group's
// binding costs no request, and revocation is seen as soon as the informer
// delivers it. It knows only RBAC: a grant by another authorizer (a
// webhook, ABAC, the Node authorizer) is not seen, so control uses it only
// for ServiceAccounts, and an operator whose cluster grants them otherwise
// turns it off (--service-account-access=reviews).
//
// The bindings must be indexed by IndexFields.
type RBAC struct {
	// Reader reads the informer caches.
	Reader client.Reader
}

// The field indexes of RoleBindings and ClusterRoleBindings RBAC reads.
const (
	// IndexBindingSubject holds a binding's subjects as SubjectKey gives
	// them.
	IndexBindingSubject = "kollect.dev/binding-subject"
	// IndexBindingRole holds the role a binding refers to, as RoleKey
	// gives it.
	IndexBindingRole = "kollect.dev/binding-role"
)

// IndexFields registers the binding indexes RBAC and the role watches use.
func IndexFields(ctx context.Context, idx client.FieldIndexer) error {
	for _, o := range []client.Object{&rbacv1.RoleBinding{}, &rbacv1.ClusterRoleBinding{}} {
		if err := idx.IndexField(ctx, o, IndexBindingSubject, func(o client.Object) []string {
			ns, subjects, _ := binding(o)
			keys := make([]string, 0, len(subjects))
			for _, s := range subjects {
				if k := SubjectKey(ns, s); k != "" {
					keys = append(keys, k)
				}
			}
			return keys
		}); err != nil {
			return fmt.Errorf("index %T by subject: %w", o, err)
		}
		if err := idx.IndexField(ctx, o, IndexBindingRole, func(o client.Object) []string {
			ns, _, ref := binding(o)
			return []string{RoleKey(ns, ref)}
		}); err != nil {
			return fmt.Errorf("index %T by role: %w", o, err)
		}
	}
	return nil
}

// binding returns the namespace ("" for a ClusterRoleBinding), subjects
// and role of a binding.
func binding(o client.Object) (string, []rbacv1.Subject, rbacv1.RoleRef) {
	switch b := o.(type) {
	case *rbacv1.RoleBinding:
		return b.Namespace, b.Subjects, b.RoleRef
	case *rbacv1.ClusterRoleBinding:
		return "", b.Subjects, b.RoleRef
	}
	return "", nil, rbacv1.RoleRef{}
}

// SubjectKey is the index value of subject s of a binding in namespace ns
// ("" for a ClusterRoleBinding): "user:<name>" for a user or a
// ServiceAccount (as its user name; one without a namespace is of the
// binding's), "group:<name>" for a group; "" for anything else.
func SubjectKey(ns string, s rbacv1.Subject) string {
	switch s.Kind {
	case rbacv1.UserKind:
		return "user:" + s.Name
	case rbacv1.GroupKind:
		return "group:" + s.Name
	case rbacv1.ServiceAccountKind:
		if s.Namespace != "" {
			ns = s.Namespace
		}
		if ns == "" {
			return ""
		}
		return "user:" + ServiceAccount(ns, s.Name).User
	}
	return ""
}

// IdentityKeys are the subject keys that name id.
func IdentityKeys(id Identity) []string {
	keys := make([]string, 0, 1+len(id.Groups))
	keys = append(keys, "user:"+id.User)
	for _, g := range id.Groups {
		keys = append(keys, "group:"+g)
	}
	return keys
}

// RoleKey is the index value of the role ref refers to from a binding in
// namespace ns: "ClusterRole/<name>" or "Role/<ns>/<name>".
func RoleKey(ns string, ref rbacv1.RoleRef) string {
	if ref.Kind == "ClusterRole" {
		return "ClusterRole/" + ref.Name
	}
	return "Role/" + ns + "/" + ref.Name
}

// Allows reports whether RBAC lets id do attrs.
func (r RBAC) Allows(ctx context.Context, id Identity, attrs authorizationv1.ResourceAttributes) (bool, error) {
	res := attrs.Resource
	if attrs.Subresource != "" {
		res += "/" + attrs.Subresource
	}
	want := rbacv1.PolicyRule{Verbs: []string{attrs.Verb}, APIGroups: []string{attrs.Group}, Resources: []string{res}}
	if attrs.Name != "" {
		want.ResourceNames = []string{attrs.Name}
	}
	keys := IdentityKeys(id)
	for _, k := range keys {
		var crbs rbacv1.ClusterRoleBindingList
		if err := r.Reader.List(ctx, &crbs, client.MatchingFields{IndexBindingSubject: k}, client.UnsafeDisableDeepCopy); err != nil {
			return false, fmt.Errorf("list the ClusterRoleBindings of %s: %w", k, err)
		}
		for i := range crbs.Items {
			if ok, err := r.grants(ctx, "", crbs.Items[i].RoleRef, want); ok || err != nil {
				return ok, err
			}
		}
	}
	if attrs.Namespace == "" {
		return false, nil
	}
	for _, k := range keys {
		var rbs rbacv1.RoleBindingList
		if err := r.Reader.List(ctx, &rbs, client.InNamespace(attrs.Namespace), client.MatchingFields{IndexBindingSubject: k},
			client.UnsafeDisableDeepCopy); err != nil {
			return false, fmt.Errorf("list the RoleBindings of %s in %s: %w", k, attrs.Namespace, err)
		}
		for i := range rbs.Items {
			if ok, err := r.grants(ctx, attrs.Namespace, rbs.Items[i].RoleRef, want); ok || err != nil {
				return ok, err
			}
		}
	}
	return false, nil
}

// grants reports whether the role ref (of a binding in ns) has a rule
// covering want. A role that does not exist grants nothing, as in the
// API server.
func (r RBAC) grants(ctx context.Context, ns string, ref rbacv1.RoleRef, want rbacv1.PolicyRule) (bool, error) {
	var rules []rbacv1.PolicyRule
	switch ref.Kind {
	case "ClusterRole":
		var cr rbacv1.ClusterRole
		if err := r.Reader.Get(ctx, client.ObjectKey{Name: ref.Name}, &cr); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		rules = cr.Rules
	case "Role":
		if ns == "" {
			return false, nil
		}
		var role rbacv1.Role
		if err := r.Reader.Get(ctx, client.ObjectKey{Namespace: ns, Name: ref.Name}, &role); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		rules = role.Rules
	default:
		return false, nil
	}
	covered, _ := validation.Covers(rules, []rbacv1.PolicyRule{want})
	return covered, nil
}
