package reconcile

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
)

// Honoured returns the Scope honoured in ns, the oldest (ties by name), or
// nil when the namespace has none.
func (d *Deps) Honoured(ctx context.Context, ns string) (*v1alpha1.KollectScope, error) {
	var list v1alpha1.KollectScopeList
	if err := d.Client.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("list scopes in %s: %w", ns, err)
	}
	items := live(list.Items, func(s v1alpha1.KollectScope) client.Object { return &s })
	if len(items) == 0 {
		return nil, nil
	}
	return &items[0], nil
}

// HonouredCluster returns the ClusterScope honoured, the oldest, or nil.
func (d *Deps) HonouredCluster(ctx context.Context) (*v1alpha1.KollectClusterScope, error) {
	var list v1alpha1.KollectClusterScopeList
	if err := d.Client.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("list cluster scopes: %w", err)
	}
	items := live(list.Items, func(s v1alpha1.KollectClusterScope) client.Object { return &s })
	if len(items) == 0 {
		return nil, nil
	}
	return &items[0], nil
}

// bound is the Scope that bounds an object: the honoured KollectScope of
// its namespace, or the honoured KollectClusterScope for cluster kinds. The
// zero bound (no Scope) allows everything.
type bound struct {
	// rules are the Scope's rules; nil when there is no Scope.
	rules *v1alpha1.ScopeRules
	// quotas are a KollectScope's quotas; nil for a ClusterScope and when
	// there is no Scope.
	quotas *v1alpha1.ScopeQuotas
	// name is "KollectScope <name>" or "KollectClusterScope <name>", for
	// messages.
	name string
	uid  types.UID
	// staticRefs is a ClusterScope's allowedStaticRefNamespaces; nil
	// allows every namespace.
	staticRefs []string
}

// allowsStaticRef reports whether a cluster kind may reference namespace ns.
func (b bound) allowsStaticRef(ns string) bool {
	return b.staticRefs == nil || slices.Contains(b.staticRefs, ns)
}

// boundFor returns the bound of objects in namespace ns, or of cluster
// kinds when ns is "".
func (d *Deps) boundFor(ctx context.Context, ns string) (bound, error) {
	if ns != "" {
		s, err := d.Honoured(ctx, ns)
		if err != nil || s == nil {
			return bound{}, err
		}
		return bound{rules: &s.Spec.ScopeRules, quotas: &s.Spec.ScopeQuotas, name: "KollectScope " + s.Name, uid: s.UID}, nil
	}
	s, err := d.HonouredCluster(ctx)
	if err != nil || s == nil {
		return bound{}, err
	}
	return bound{rules: &s.Spec.ScopeRules, name: "KollectClusterScope " + s.Name, uid: s.UID,
		staticRefs: s.Spec.AllowedStaticRefNamespaces}, nil
}

// live drops objects being deleted and sorts the rest oldest first.
func live[T any](items []T, obj func(T) client.Object) []T {
	out := slices.DeleteFunc(slices.Clone(items), func(t T) bool { return obj(t).GetDeletionTimestamp() != nil })
	slices.SortFunc(out, func(a, b T) int {
		oa, ob := obj(a), obj(b)
		if c := oa.GetCreationTimestamp().Compare(ob.GetCreationTimestamp().Time); c != 0 {
			return c
		}
		return strings.Compare(oa.GetName(), ob.GetName())
	})
	return out
}
