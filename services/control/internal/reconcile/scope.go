package reconcile

import (
	"context"
	"fmt"
	"slices"
	"strings"

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
