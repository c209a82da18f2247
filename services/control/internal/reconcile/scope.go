package reconcile

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
)

// honoured returns the Scope honoured in ns, the oldest (ties by name), or
// nil when the namespace has none.
func (d *Deps) honoured(ctx context.Context, ns string) (*v1alpha1.KollectScope, error) {
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

// honouredCluster returns the ClusterScope honoured, the oldest, or nil.
func (d *Deps) honouredCluster(ctx context.Context) (*v1alpha1.KollectClusterScope, error) {
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

// allowsGVK reports whether rules allow a Profile to target gvk.
func allowsGVK(rules *v1alpha1.ScopeRules, gvk v1alpha1.GroupVersionKind) bool {
	if rules == nil || rules.AllowedGVKs == nil {
		return true
	}
	return slices.ContainsFunc(rules.AllowedGVKs, func(a v1alpha1.AllowedGVK) bool {
		return a.Group == gvk.Group && a.Kind == gvk.Kind && (a.Version == "" || a.Version == gvk.Version)
	})
}

// allowsNamespace reports whether rules let a target collect from ns.
func allowsNamespace(rules *v1alpha1.ScopeRules, ns string) bool {
	if rules == nil {
		return true
	}
	if slices.Contains(rules.DeniedNamespaces, ns) {
		return false
	}
	return rules.AllowedNamespaces == nil || slices.Contains(rules.AllowedNamespaces, ns)
}

// allowsSink reports whether rules let an inventory bind the sink name of a
// family, given the family's allow list.
func allowsSink(allow []string, name string) bool {
	return allow == nil || slices.Contains(allow, name)
}

// floor returns the Scope's minExportInterval, zero when unset.
func floor(rules *v1alpha1.ScopeRules) time.Duration {
	if rules == nil || rules.MinExportInterval == nil {
		return 0
	}
	return rules.MinExportInterval.Duration
}

// namespaceViolation returns a message naming the first namespace the
// target's explicit includedNamespaces reach that rules forbid, or "".
func namespaceViolation(rules *v1alpha1.ScopeRules, included []string) string {
	for _, ns := range included {
		if !allowsNamespace(rules, ns) {
			return fmt.Sprintf("spec.includedNamespaces: namespace %s is not allowed by the Scope", ns)
		}
	}
	return ""
}
