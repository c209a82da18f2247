package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/cli/internal/manifests"
	"kollect.dev/kollect/services/cli/internal/restmap"
)

// adhocName names the Profile and Target an ad-hoc collection makes.
const adhocName = "adhoc"

// adhocFlags describe an ad-hoc collection: one kind, its attributes and a
// label selector, turned into the Profile and Target that would collect it.
type adhocFlags struct {
	kind   string
	attrs  []string
	labels string
}

func (a *adhocFlags) bind(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&a.kind, "kind", "", "collect this resource ad hoc, as kubectl names it (deployments.apps, deploy, nodes)")
	f.StringArrayVar(&a.attrs, "attr", nil, "NAME=EXPR: an attribute of --kind; EXPR is a Profile path (JSONPath $.spec..., {.spec...}, or cel:...); repeatable")
	f.StringVarP(&a.labels, "selector", "l", "", "with --kind, a label selector (app=web,tier!=db)")
}

// columns are the attribute names, in flag order.
func (a *adhocFlags) columns() []string {
	cols := []string{}
	for _, kv := range a.attrs {
		name, _, _ := strings.Cut(kv, "=")
		cols = append(cols, name)
	}
	return cols
}

// objects returns the Profile and Target (a ClusterTarget for a
// cluster-scoped kind) of the ad-hoc collection, resolving --kind with the
// first context's discovery documents.
func (a *adhocFlags) objects(ctx context.Context, kube *kubeFlags, ns string, all bool) ([]manifests.Object, error) {
	var attrs []v1alpha1.Attribute
	for _, kv := range a.attrs {
		name, expr, ok := strings.Cut(kv, "=")
		if !ok || name == "" || expr == "" {
			return nil, fmt.Errorf("--attr %q: want NAME=EXPR", kv)
		}
		attrs = append(attrs, v1alpha1.Attribute{Name: name, Path: expr, Optional: true})
	}
	if len(attrs) == 0 {
		return nil, fmt.Errorf("--kind %s: give at least one --attr NAME=EXPR", a.kind)
	}
	gvk, namespaced, err := a.resolve(ctx, kube)
	if err != nil {
		return nil, err
	}
	var sel *metav1.LabelSelector
	if a.labels != "" {
		if sel, err = metav1.ParseToLabelSelector(a.labels); err != nil {
			return nil, fmt.Errorf("-l/--selector %q: %w", a.labels, err)
		}
	}
	profileNS := ns
	if profileNS == "" {
		profileNS = metav1.NamespaceDefault
	}
	profile := &v1alpha1.KollectProfile{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "KollectProfile"},
		ObjectMeta: metav1.ObjectMeta{Name: adhocName, Namespace: profileNS},
		Spec: v1alpha1.KollectProfileSpec{
			TargetGVK:  v1alpha1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
			Attributes: attrs,
		},
	}
	var tgt runtime.Object
	if namespaced {
		t := &v1alpha1.KollectTarget{
			TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "KollectTarget"},
			ObjectMeta: metav1.ObjectMeta{Name: adhocName, Namespace: profileNS},
		}
		t.Spec.ProfileRef.Name = adhocName
		t.Spec.LabelSelector = sel
		if !all {
			t.Spec.IncludedNamespaces = []string{ns}
		}
		tgt = t
	} else {
		t := &v1alpha1.KollectClusterTarget{
			TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "KollectClusterTarget"},
			ObjectMeta: metav1.ObjectMeta{Name: adhocName},
		}
		t.Spec.ProfileRef.Name, t.Spec.ProfileRef.Namespace = adhocName, profileNS
		t.Spec.LabelSelector = sel
		tgt = t
	}
	var out []manifests.Object
	for i, o := range []runtime.Object{profile, tgt} {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return nil, err
		}
		out = append(out, manifests.Object{File: "--kind", Index: i, Object: &unstructured.Unstructured{Object: m}})
	}
	return out, nil
}

// resolve maps --kind to the kind the first context serves, as kubectl does
// (plural, singular, short name, Kind, with or without .group).
func (a *adhocFlags) resolve(ctx context.Context, kube *kubeFlags) (schema.GroupVersionKind, bool, error) {
	cfg, err := kube.RESTConfig(kube.firstContext())
	if err != nil {
		return schema.GroupVersionKind{}, false, err
	}
	mapper, err := restmap.New(cfg)
	if err != nil {
		return schema.GroupVersionKind{}, false, err
	}
	m, err := mapper.ResourceFor(ctx, a.kind)
	if err != nil {
		return schema.GroupVersionKind{}, false, fmt.Errorf("--kind %q: %w", a.kind, err)
	}
	return m.GroupVersionKind, m.Scope.Name() == meta.RESTScopeNameNamespace, nil
}
