package collect

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/pkg/target"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestListScopes(t *testing.T) {
	compiled := func(spec v1alpha1.KollectTargetSpec) *target.Compiled {
		t.Helper()
		tg := &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "t"}, Spec: spec}
		prof := &v1alpha1.KollectProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "p"},
			Spec: v1alpha1.KollectProfileSpec{TargetGVK: v1alpha1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
				Attributes: []v1alpha1.Attribute{{Name: "image", Path: "$.spec.template.spec.containers[0].image"}}}}
		cfg, err := target.ConfigForTarget(tg, prof, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Access = &busv1.TargetAccess{AllNamespaces: true}
		c, err := target.Compile(cfg, extract.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	namespaces := map[string]*selection.Namespace{}
	for i, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		env := "dev"
		if i == 0 {
			env = "prod"
		}
		namespaces[name] = &selection.Namespace{Name: name, Labels: map[string]string{"env": env}}
	}
	prod := compiled(v1alpha1.KollectTargetSpec{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}})
	dev := compiled(v1alpha1.KollectTargetSpec{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}})
	static := compiled(v1alpha1.KollectTargetSpec{NamespaceFilters: v1alpha1.NamespaceFilters{IncludedNamespaces: []string{"c", "b"}}})
	for name, tc := range map[string]struct {
		namespaced bool
		targets    []*target.Compiled
		namespaces map[string]*selection.Namespace
		want       []string
	}{
		"a cluster-scoped kind is one list":                      {false, []*target.Compiled{prod}, namespaces, []string{""}},
		"static namespaces are listed one by one":                {true, []*target.Compiled{static}, namespaces, []string{"b", "c"}},
		"a selector reaching 1 of 8 namespaces lists that one":   {true, []*target.Compiled{prod}, namespaces, []string{"a"}},
		"selectors reaching most namespaces list all at once":    {true, []*target.Compiled{prod, dev}, namespaces, []string{""}},
		"a selector and static names reaching 3 of 8: the union": {true, []*target.Compiled{prod, static}, namespaces, []string{"a", "b", "c"}},
		"no namespace list (not allowed to list them): list all": {true, []*target.Compiled{prod}, nil, []string{""}},
	} {
		t.Run(name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, listScopes(tc.namespaced, tc.targets, tc.namespaces)); d != "" {
				t.Error(d)
			}
		})
	}
}
