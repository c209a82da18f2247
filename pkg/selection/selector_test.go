package selection

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
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

func TestServerFilter(t *testing.T) {
	ls := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"b", "a"}}}}
	cases := []struct {
		name         string
		sel          v1alpha1.ObjectSelection
		label, field string
		ok           bool
	}{
		{"every object: nothing to filter", v1alpha1.ObjectSelection{}, "", "", false},
		{"a label selector goes to the server", v1alpha1.ObjectSelection{LabelSelector: ls}, "app=web,tier in (a,b)", "", true},
		{"an empty label selector selects everything", v1alpha1.ObjectSelection{LabelSelector: &metav1.LabelSelector{}}, "", "", false},
		{"one name is a field selector", v1alpha1.ObjectSelection{Names: []string{"web"}}, "", "metadata.name=web", true},
		{"several names cannot be one field selector", v1alpha1.ObjectSelection{Names: []string{"a", "b"}}, "", "", false},
		{"names or labels cannot be one selector", v1alpha1.ObjectSelection{LabelSelector: ls, Names: []string{"a"}}, "", "", false},
		{"resource rules are decided here", v1alpha1.ObjectSelection{LabelSelector: ls, ResourceRules: []v1alpha1.ResourceRule{{}}}, "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			label, field, ok := mustCompile(t, Spec{GVK: deployGVK, ObjectSelection: c.sel}).ServerFilter()
			if label != c.label || field != c.field || ok != c.ok {
				t.Errorf("ServerFilter = %q, %q, %v; want %q, %q, %v", label, field, ok, c.label, c.field, c.ok)
			}
			if _, err := labels.Parse(label); err != nil {
				t.Errorf("the API server cannot parse %q: %v", label, err)
			}
		})
	}
}
