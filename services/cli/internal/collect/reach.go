package collect

import (
	"context"

	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/pkg/target"
)

func (o Options) kube() Kube {
	if o.Kube != nil {
		return o.Kube
	}
	return kubeconfigFile(o.Kubeconfig)
}

// reach returns the namespaces of one context and the plan to run there.
// A user who may not list namespaces (only namespaced RBAC) collects from
// the Targets' namespaces instead: the ones they name, else their own; the
// namespaces' labels are read where the user may get them. --namespace
// restricts the plan to its namespaces either way.
func reach(ctx context.Context, l *lister, dyn dynamic.Interface, p *plan, opts Options, kctx string) (map[string]*selection.Namespace, *plan, error) {
	namespaces, err := listNamespaces(ctx, l)
	switch {
	case err == nil && len(opts.Namespaces) == 0:
		return namespaces, p, nil
	case err == nil:
		return namespaces, p.restricted(opts.Namespaces), nil
	case !apierrors.IsForbidden(err):
		return nil, nil, err
	}
	allowed := opts.Namespaces
	if len(allowed) == 0 {
		allowed = targetNamespaces(p)
	}
	if len(allowed) == 0 {
		return nil, nil, fmt.Errorf("%w; the Targets name no namespace to fall back to: pass --namespace", err)
	}
	if opts.Warnings != nil {
		fmt.Fprintf(opts.Warnings, "warning: context %s: may not list namespaces; collecting from %s only\n", kctx, strings.Join(allowed, ", "))
	}
	namespaces = map[string]*selection.Namespace{}
	var unlabelled []string
	for _, name := range allowed {
		ns := &selection.Namespace{Name: name}
		if u, err := dyn.Resource(namespacesGVR).Get(ctx, name, metav1.GetOptions{}); err == nil {
			ns.Labels, ns.Annotations = u.GetLabels(), u.GetAnnotations()
		} else if apierrors.IsForbidden(err) || apierrors.IsNotFound(err) {
			unlabelled = append(unlabelled, name)
		} else {
			return nil, nil, fmt.Errorf("get namespace %s: %w", name, err)
		}
		namespaces[name] = ns
	}
	if len(unlabelled) > 0 && opts.Warnings != nil {
		fmt.Fprintf(opts.Warnings, "warning: context %s: may not read the labels of namespace %s; namespaceSelectors do not match it\n",
			kctx, strings.Join(unlabelled, ", "))
	}
	return namespaces, p.restricted(allowed), nil
}

// targetNamespaces are the namespaces the Targets name (includedNamespaces
// with no selector), else each Target's own namespace, sorted.
func targetNamespaces(p *plan) []string {
	var out []string
	for _, t := range p.targets {
		names, ok := t.Selector().StaticNamespaces()
		if !ok && t.Config.Namespace != "" {
			names = []string{t.Config.Namespace}
		}
		for _, n := range names {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// restricted returns a copy of p whose Targets may read only namespaces
// (their Access), so that listing and evaluation stay within them.
func (p *plan) restricted(namespaces []string) *plan {
	allowed := slices.Sorted(slices.Values(namespaces))
	out := &plan{byGVK: map[schema.GroupVersionKind][]*target.Compiled{}}
	for _, t := range p.targets {
		c := *t
		c.Config.Access = &busv1.TargetAccess{Namespaces: allowed}
		out.targets = append(out.targets, &c)
		out.byGVK[c.GVK] = append(out.byGVK[c.GVK], &c)
	}
	return out
}

// listable returns the namespaces to list for t when they are known (its
// static selection within its Access); ok is false when every namespace
// must be listed.
func listable(t *target.Compiled) (names []string, ok bool) {
	names, ok = t.Selector().StaticNamespaces()
	a := t.Config.Access
	switch {
	case a == nil || a.AllNamespaces:
		return names, ok
	case !ok:
		return a.Namespaces, true
	}
	return slices.DeleteFunc(names, func(n string) bool { return !slices.Contains(a.Namespaces, n) }), true
}
