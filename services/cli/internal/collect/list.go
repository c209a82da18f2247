package collect

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/pkg/target"
)

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// namespaceFields are what selection reads of a namespace.
var namespaceFields = extract.NewFieldSet([]string{"metadata", "name"}, []string{"metadata", "labels"}, []string{"metadata", "annotations"})

// identity are the fields Evaluate reads of every object, besides those of
// the Profile and the selection.
var identity = [][]string{{"apiVersion"}, {"kind"}, {"metadata", "name"}, {"metadata", "namespace"},
	{"metadata", "uid"}, {"metadata", "labels"}}

// listQuery is what the lists of the targets' kind ask for: the fields
// they read, and the label or field selector they all select objects by,
// if they share one (as the collector's informers do).
func listQuery(targets []*target.Compiled) query {
	q := query{keep: readFields(targets)}
	for i, t := range targets {
		label, field, ok := t.Selector().ServerFilter()
		if !ok || (i > 0 && (label != q.labelSelector || field != q.fieldSelector)) {
			q.labelSelector, q.fieldSelector = "", ""
			break
		}
		q.labelSelector, q.fieldSelector = label, field
	}
	return q
}

// readFields returns the fields the targets read of an object, nil when one
// of them may read any field: what the collector's informers keep.
func readFields(targets []*target.Compiled) *extract.FieldSet {
	keep := extract.NewFieldSet(identity...)
	for _, t := range targets {
		if t.NeedsWholeObject() {
			return nil
		}
		keep.Union(t.Fields())
	}
	return keep
}

// listNamespaces returns every namespace with its labels and annotations.
func listNamespaces(ctx context.Context, l *lister) (map[string]*selection.Namespace, error) {
	out := map[string]*selection.Namespace{}
	err := l.list(ctx, namespacesGVR, namespacesGVR.GroupVersion().WithKind("Namespace"), "", query{keep: namespaceFields}, func(obj map[string]any) {
		u := unstructured.Unstructured{Object: obj}
		out[u.GetName()] = &selection.Namespace{Name: u.GetName(), Labels: u.GetLabels(), Annotations: u.GetAnnotations()}
	})
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	return out, nil
}

// gvkResult is what listing one kind produced.
type gvkResult struct {
	rows     []busv1.Row
	failures []error // extraction failures, one per object and target
}

// collectGVK lists the objects of one kind (only the namespaces the Targets
// can reach when they are static) and evaluates every Target of that kind.
func collectGVK(ctx context.Context, l *lister, mapping *meta.RESTMapping, targets []*target.Compiled,
	namespaces map[string]*selection.Namespace) (gvkResult, error) {
	var res gvkResult
	q := listQuery(targets)
	namespaced := mapping.Scope.Name() == meta.RESTScopeNameNamespace
	eval := func(obj map[string]any) {
		u := &unstructured.Unstructured{Object: obj}
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
	for _, ns := range listScopes(namespaced, targets, namespaces) {
		if err := l.list(ctx, mapping.Resource, mapping.GroupVersionKind, ns, q, eval); err != nil {
			return res, fmt.Errorf("list %s in %q: %w", mapping.Resource.Resource, ns, err)
		}
	}
	return res, nil
}

// listScopes returns the namespaces to list ("" = all): the union of the
// Targets' static namespaces when every Target has them; else the namespaces
// some Target's selector reaches, listed one by one when they are fewer than
// half of the cluster's (a selective namespaceSelector then reads only its
// namespaces), else all in one list.
func listScopes(namespaced bool, targets []*target.Compiled, namespaces map[string]*selection.Namespace) []string {
	if !namespaced {
		return []string{metav1.NamespaceAll}
	}
	seen := map[string]bool{}
	static := true
	for _, t := range targets {
		names, ok := listable(t)
		if !ok {
			static = false
			break
		}
		for _, n := range names {
			seen[n] = true
		}
	}
	if !static {
		clear(seen)
		for name, ns := range namespaces {
			for _, t := range targets {
				if t.Namespace(*ns) {
					seen[name] = true
					break
				}
			}
		}
		if len(namespaces) == 0 || 2*len(seen) >= len(namespaces) {
			return []string{metav1.NamespaceAll}
		}
	}
	return slices.Sorted(maps.Keys(seen))
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
