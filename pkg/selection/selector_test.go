package selection

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"kollect.dev/kollect/api/v1alpha1"
)

var deployGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

func mustCompile(t *testing.T, s Spec) *Selector {
	t.Helper()
	s.GVK = deployGVK
	sel, errs := Compile(s)
	if len(errs) > 0 {
		t.Fatalf("Compile: %v", errs.ToAggregate())
	}
	return sel
}

func TestNamespace(t *testing.T) {
	prod := Namespace{Name: "prod", Labels: map[string]string{"env": "prod", "team": "a"}}
	dev := Namespace{Name: "dev", Labels: map[string]string{"env": "dev", "team": "a"}}
	other := Namespace{Name: "other"}
	envProd := &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	tests := []struct {
		name string
		spec Spec
		want map[string]bool
	}{
		{"no filters at all reach every namespace", Spec{},
			map[string]bool{"prod": true, "dev": true, "other": true}},
		{"includedNamespaces alone reach only those namespaces",
			Spec{NamespaceFilters: v1alpha1.NamespaceFilters{IncludedNamespaces: []string{"dev"}}},
			map[string]bool{"prod": false, "dev": true, "other": false}},
		{"a namespaceSelector reaches the namespaces whose labels match", Spec{NamespaceSelector: envProd},
			map[string]bool{"prod": true, "dev": false, "other": false}},
		{"a selector and an included list add up",
			Spec{NamespaceSelector: envProd, NamespaceFilters: v1alpha1.NamespaceFilters{IncludedNamespaces: []string{"other"}}},
			map[string]bool{"prod": true, "dev": false, "other": true}},
		{"excludedNamespaces win over the all-namespaces default",
			Spec{NamespaceFilters: v1alpha1.NamespaceFilters{ExcludedNamespaces: []string{"prod"}}},
			map[string]bool{"prod": false, "dev": true, "other": true}},
		{"excludedNamespaces win over includedNamespaces",
			Spec{NamespaceFilters: v1alpha1.NamespaceFilters{IncludedNamespaces: []string{"dev"}, ExcludedNamespaces: []string{"dev"}}},
			map[string]bool{"prod": false, "dev": false, "other": false}},
		{"namespaceExcludeSelector removes matching namespaces",
			Spec{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
				NamespaceFilters: v1alpha1.NamespaceFilters{NamespaceExcludeSelector: envProd}},
			map[string]bool{"prod": false, "dev": true, "other": false}},
		{"an empty selector matches every namespace",
			Spec{NamespaceSelector: &metav1.LabelSelector{}},
			map[string]bool{"prod": true, "dev": true, "other": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel := mustCompile(t, tt.spec)
			for _, ns := range []Namespace{prod, dev, other} {
				if got := sel.Namespace(ns); got != tt.want[ns.Name] {
					t.Errorf("Namespace(%s) = %v, want %v", ns.Name, got, tt.want[ns.Name])
				}
			}
		})
	}
}

func TestStaticNamespaces(t *testing.T) {
	sel := mustCompile(t, Spec{NamespaceFilters: v1alpha1.NamespaceFilters{
		IncludedNamespaces: []string{"b", "a", "c"}, ExcludedNamespaces: []string{"c"}}})
	got, ok := sel.StaticNamespaces()
	if !ok || strings.Join(got, ",") != "a,b" {
		t.Errorf("StaticNamespaces = %v, %v; want [a b], true", got, ok)
	}
	sel = mustCompile(t, Spec{})
	if _, ok := sel.StaticNamespaces(); ok {
		t.Error("the all-namespaces default reported a static namespace list")
	}
}

func TestCompileErrorsNameTheField(t *testing.T) {
	_, errs := Compile(Spec{GVK: deployGVK, ObjectSelection: v1alpha1.ObjectSelection{
		LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}},
		ResourceRules: []v1alpha1.ResourceRule{{}, {MatchPolicy: "object.spec.replicas +"}},
	}})
	got := errs.ToAggregate().Error()
	for _, want := range []string{"spec.labelSelector", "spec.resourceRules[1].matchPolicy"} {
		if !strings.Contains(got, want) {
			t.Errorf("errors %q do not name %s", got, want)
		}
	}
}
