package target

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/selection"
)

// withAccess compiles a Target that selects every namespace, bounded only
// by access.
func withAccess(t *testing.T, access *busv1.TargetAccess) *Compiled {
	t.Helper()
	tgt := &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}}
	cfg, err := ConfigForTarget(tgt, profile(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Access = access
	c, err := Compile(cfg, extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAccessBoundsWhatATargetCollects(t *testing.T) {
	cases := []struct {
		name    string
		access  *busv1.TargetAccess
		collect map[string]bool // namespace ("" = a cluster-scoped object) -> collected
	}{
		{"no access collects nothing (fail closed)", nil,
			map[string]bool{"team-a": false, "team-b": false, "": false}},
		{"namespace access collects only those namespaces",
			&busv1.TargetAccess{ServiceAccount: "team-a/kollect", Namespaces: []string{"team-a", "team-c"}},
			map[string]bool{"team-a": true, "team-b": false, "team-c": true, "": false}},
		{"cluster-wide access collects everywhere, cluster-scoped objects too",
			&busv1.TargetAccess{AllNamespaces: true},
			map[string]bool{"team-a": true, "team-b": true, "": true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := withAccess(t, tc.access)
			for ns, want := range tc.collect {
				var obj *unstructured.Unstructured
				var where *selection.Namespace
				if ns != "" {
					obj, where = deploy(ns, "x", nil), &selection.Namespace{Name: ns}
				} else {
					obj = deploy("", "x", nil)
				}
				row, err := c.Evaluate(obj, where)
				if err != nil {
					t.Fatal(err)
				}
				if got := row != nil; got != want {
					t.Errorf("namespace %q collected = %v, want %v", ns, got, want)
				}
			}
		})
	}
}

func TestClusterTargetsActWithTheOperatorsReach(t *testing.T) {
	ct := &v1alpha1.KollectClusterTarget{ObjectMeta: metav1.ObjectMeta{Name: "all"}}
	cfg, err := ConfigForClusterTarget(ct, profile(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Access == nil || !cfg.Access.AllNamespaces {
		t.Errorf("ClusterTarget access = %+v, want every namespace", cfg.Access)
	}
}

// A matchPolicy sees the object redacted with the operator's redaction
// names too, so it cannot be used as an oracle of a value the operator
// asked to redact.
func TestMatchPolicySeesTheOperatorsRedaction(t *testing.T) {
	tgt := &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}}
	tgt.Spec.ResourceRules = []v1alpha1.ResourceRule{{MatchPolicy: `object.spec.template.spec.containers[0].image == "web:1"`}}
	cfg, err := ConfigForTarget(tgt, profile(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Access = &busv1.TargetAccess{AllNamespaces: true}
	for _, tc := range []struct {
		name    string
		opts    extract.Options
		matched bool
	}{
		{"without an operator name the predicate reads the value", extract.Options{}, true},
		{"with the field's name redacted by the operator it never matches", extract.Options{ScrubKeys: []string{"image"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compile(cfg, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			row, err := c.Evaluate(deploy("team-a", "web", nil), &selection.Namespace{Name: "team-a"})
			if err != nil {
				t.Fatal(err)
			}
			if got := row != nil; got != tc.matched {
				t.Errorf("matched = %v, want %v", got, tc.matched)
			}
		})
	}
}
