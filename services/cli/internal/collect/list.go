package collect

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/pkg/target"
)

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// listNamespaces returns every namespace with its labels and annotations.
func listNamespaces(ctx context.Context, dyn dynamic.Interface, pageSize int64) (map[string]*selection.Namespace, error) {
	out := map[string]*selection.Namespace{}
	err := paginate(ctx, dyn.Resource(namespacesGVR), pageSize, func(u *unstructured.Unstructured) {
		out[u.GetName()] = &selection.Namespace{Name: u.GetName(), Labels: u.GetLabels(), Annotations: u.GetAnnotations()}
	})
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	return out, nil
}

// paginate lists r in pages of pageSize and calls fn for every object.
func paginate(ctx context.Context, r dynamic.ResourceInterface, pageSize int64, fn func(*unstructured.Unstructured)) error {
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		list, err := r.List(ctx, opts)
		if err != nil {
			return err
		}
		for i := range list.Items {
			fn(&list.Items[i])
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return nil
		}
	}
}

// gvkResult is what listing one kind produced.
type gvkResult struct {
	rows     []busv1.Row
	failures []error // extraction failures, one per object and target
}

// collectGVK lists the objects of one kind (only the namespaces the Targets
// can reach when they are static) and evaluates every Target of that kind.
func collectGVK(ctx context.Context, dyn dynamic.Interface, mapping *meta.RESTMapping, targets []*target.Compiled,
	namespaces map[string]*selection.Namespace, pageSize int64) (gvkResult, error) {
	var res gvkResult
	namespaced := mapping.Scope.Name() == meta.RESTScopeNameNamespace
	eval := func(u *unstructured.Unstructured) {
		var ns *selection.Namespace
		if namespaced {
			if ns = namespaces[u.GetNamespace()]; ns == nil {
				ns = &selection.Namespace{Name: u.GetNamespace()}
			}
		}
		for _, t := range targets {
			row, err := t.Evaluate(u, ns)
			if err != nil {
				res.failures = append(res.failures, fmt.Errorf("%s %s: %w", t.Config.Kind, targetRef(t), err))
				continue
			}
			if row != nil {
				res.rows = append(res.rows, *row)
			}
		}
	}
	for _, ns := range listScopes(namespaced, targets) {
		r := dyn.Resource(mapping.Resource).Namespace(ns)
		if err := paginate(ctx, r, pageSize, eval); err != nil {
			return res, fmt.Errorf("list %s in %q: %w", mapping.Resource.Resource, ns, err)
		}
	}
	return res, nil
}

// listScopes returns the namespaces to list ("" = all): the union of the
// Targets' static namespaces when every Target has them, else all.
func listScopes(namespaced bool, targets []*target.Compiled) []string {
	if !namespaced {
		return []string{metav1.NamespaceAll}
	}
	seen := map[string]bool{}
	var out []string
	for _, t := range targets {
		names, ok := listable(t)
		if !ok {
			return []string{metav1.NamespaceAll}
		}
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

func targetRef(t *target.Compiled) string {
	if t.Config.Namespace == "" {
		return t.Config.Name
	}
	return t.Config.Namespace + "/" + t.Config.Name
}

// namespaceList converts the namespace map for inventory resolution.
func namespaceList(m map[string]*selection.Namespace) []selection.Namespace {
	out := make([]selection.Namespace, 0, len(m))
	for _, ns := range m {
		out = append(out, *ns)
	}
	return out
}
