package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/services/control/internal/access"
	"kollect.dev/kollect/services/control/internal/policy"
	"kollect.dev/kollect/services/control/internal/requester"
)

// AccessReviewer answers what an identity may list or get;
// access.Reviewer implements it.
type AccessReviewer interface {
	Mapping(gvk schema.GroupVersionKind) (schema.GroupVersionResource, bool, error)
	MayList(ctx context.Context, id access.Identity, res schema.GroupVersionResource, ns string) (bool, error)
	MayGet(ctx context.Context, id access.Identity, res schema.GroupVersionResource, ns, name string) (bool, error)
	requester.Reviewer
}

// grant is what a Target's ServiceAccount may collect: the entry's Access,
// and the selected namespaces it may not list (the Target is degraded).
type grant struct {
	access   *busv1.TargetAccess
	resource string // the resource reviewed, for messages
	denied   []string
	unserved bool // the kind is not served (yet): review again soon
}

// unservedRecheck is how soon a Target whose kind is not served is
// reviewed again: a CRD installed later is picked up within it.
const unservedRecheck = 10 * time.Second

// serviceAccount is the ServiceAccount a Target acts as.
func (r *TargetReconciler) serviceAccount(obj *v1alpha1.KollectTarget) string {
	if obj.Spec.ServiceAccountName != "" {
		return obj.Spec.ServiceAccountName
	}
	return r.Policy.DefaultServiceAccount
}

// grantFor checks, with SubjectAccessReviews for the Target's
// ServiceAccount, that it may list the Profile's kind cluster-wide or else
// in each namespace the Target selects within its Scope. An AccessDenied
// *v1alpha1.ReasonError says the Target may collect nowhere: it fails
// closed.
func (r *TargetReconciler) grantFor(ctx context.Context, obj *v1alpha1.KollectTarget, t compiledTarget) (g grant, err error) {
	name := r.serviceAccount(obj)
	if name == "" {
		return g, v1alpha1.Reasonf(v1alpha1.ReasonAccessDenied, "spec.serviceAccountName: no ServiceAccount to act as (the operator sets no --default-service-account)")
	}
	sa := obj.Namespace + "/" + name
	res, namespaced, err := r.Access.Mapping(t.gvk)
	if err != nil {
		// An unserved kind is a condition, reviewed again soon, not an error.
		g.unserved = true
		return g, v1alpha1.Reasonf(v1alpha1.ReasonAccessDenied,
			"spec.profileRef: kind %s is not served by the API server (yet); access is reviewed once it is", gvkString(t.gvk))
	}
	id := access.ServiceAccount(obj.Namespace, name)
	all, err := r.Access.MayList(ctx, id, res, "")
	if err != nil {
		return g, err
	}
	if all {
		return grant{access: &busv1.TargetAccess{ServiceAccount: sa, AllNamespaces: true}}, nil
	}
	if !namespaced {
		return g, v1alpha1.Reasonf(v1alpha1.ReasonAccessDenied, "ServiceAccount %s may not list %s cluster-wide (a cluster-scoped kind)", sa, res.Resource)
	}
	selected, err := r.selectedNamespaces(ctx, t.selector, t.bound.rules)
	if err != nil {
		return g, err
	}
	g.access, g.resource = &busv1.TargetAccess{ServiceAccount: sa, Namespaces: []string{}}, res.Resource
	for _, ns := range selected {
		ok, err := r.Access.MayList(ctx, id, res, ns)
		if err != nil {
			return g, err
		}
		if ok {
			g.access.Namespaces = append(g.access.Namespaces, ns)
		} else {
			g.denied = append(g.denied, ns)
		}
	}
	if len(g.access.Namespaces) == 0 && len(g.denied) > 0 {
		return g, &v1alpha1.ReasonError{Reason: v1alpha1.ReasonAccessDenied, Err: errors.New(deniedMessage(sa, res.Resource, g.denied))}
	}
	return g, nil
}

// selectedNamespaces lists the existing namespaces the selection reaches
// within the Scope, sorted. A namespace created later makes control
// reconcile the Target again (it watches namespaces).
func (r *TargetReconciler) selectedNamespaces(ctx context.Context, sel *selection.Selector, rules *v1alpha1.ScopeRules) ([]string, error) {
	var list corev1.NamespaceList
	if err := r.Client.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	var out []string
	for i := range list.Items {
		ns := &list.Items[i]
		if !policy.AllowsNamespace(rules, ns.Name) {
			continue
		}
		if sel.Namespace(selection.Namespace{Name: ns.Name, Labels: ns.Labels, Annotations: ns.Annotations}) {
			out = append(out, ns.Name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// deniedMessage names the ServiceAccount and at most five namespaces it
// may not list the resource in.
func deniedMessage(sa, resource string, denied []string) string {
	shown := denied
	if len(shown) > 5 {
		shown = shown[:5]
	}
	more := ""
	if n := len(denied) - len(shown); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return fmt.Sprintf("ServiceAccount %s may not list %s in namespace %s%s; grant it with a RoleBinding there, "+
		"or set spec.serviceAccountName", sa, resource, strings.Join(shown, ", "), more)
}

func gvkString(gvk schema.GroupVersionKind) string {
	if gvk.Group == "" {
		return gvk.Version + " " + gvk.Kind
	}
	return gvk.Group + "/" + gvk.Version + " " + gvk.Kind
}
