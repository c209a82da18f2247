package target

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/selection"
)

func profile() *v1alpha1.KollectProfile {
	return &v1alpha1.KollectProfile{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "images", Generation: 4, Annotations: map[string]string{
			v1alpha1.AnnotationAllowSecretExtraction: "true", "example.com/unrelated": "do not ship"}},
		Spec: v1alpha1.KollectProfileSpec{
			TargetGVK: v1alpha1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Attributes: []v1alpha1.Attribute{
				{Name: "image", Path: "$.spec.template.spec.containers[0].image", Type: "string"},
				{Name: "apiToken", Path: "$.metadata.annotations.token", Optional: true},
			},
		},
	}
}

func deploy(ns, name string, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"namespace": ns, "name": name, "uid": "uid-" + name,
			"annotations": map[string]any{"token": "s3cr3t"}},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "app", "image": name + ":1"}}}}},
	}}
	u.SetLabels(labels)
	return u
}

func compiled(t *testing.T, tgt *v1alpha1.KollectTarget, scope *v1alpha1.ScopeRules) *Compiled {
	t.Helper()
	cfg, err := ConfigForTarget(tgt, profile(), scope)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Access = &busv1.TargetAccess{AllNamespaces: true}
	c, err := Compile(cfg, extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConfigCarriesOnlyTheOptInAnnotations(t *testing.T) {
	tgt := &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web", UID: "t1", Generation: 2}}
	cfg, err := ConfigForTarget(tgt, profile(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{v1alpha1.AnnotationAllowSecretExtraction: "true"}
	if diff := cmp.Diff(want, cfg.ProfileAnnotations); diff != "" {
		t.Errorf("ProfileAnnotations (-want +got):\n%s", diff)
	}
	if cfg.Kind != busv1.KindTarget || cfg.Generation != 2 || cfg.ProfileGeneration != 4 || cfg.Scope != nil {
		t.Errorf("config header = %+v", cfg)
	}
}

func TestEvaluateBuildsTheRedactedRow(t *testing.T) {
	c := compiled(t, &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}}, nil)
	row, err := c.Evaluate(deploy("team-b", "api", nil), &selection.Namespace{Name: "team-b"})
	if err != nil {
		t.Fatal(err)
	}
	want := &busv1.Row{TargetNamespace: "team-a", TargetName: "web", Namespace: "team-b", Name: "api", UID: "uid-api",
		Group: "apps", Version: "v1", Kind: "Deployment",
		Attributes: map[string]any{"image": "api:1", "apiToken": extract.Redacted("sensitive-key")}}
	if diff := cmp.Diff(want, row); diff != "" {
		t.Errorf("row (-want +got):\n%s", diff)
	}
}

func TestScopeBoundsNamespaces(t *testing.T) {
	scope := &v1alpha1.ScopeRules{AllowedNamespaces: []string{"team-a", "team-b"}, DeniedNamespaces: []string{"team-b"}}
	c := compiled(t, &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "web"}}, scope)
	for ns, want := range map[string]bool{"team-a": true, "team-b": false, "team-c": false} {
		row, err := c.Evaluate(deploy(ns, "x", nil), &selection.Namespace{Name: ns})
		if err != nil {
			t.Fatal(err)
		}
		if got := row != nil; got != want {
			t.Errorf("namespace %s collected = %v, want %v", ns, got, want)
		}
	}
}

func TestClusterTargetRowsHaveNoTargetNamespace(t *testing.T) {
	ct := &v1alpha1.KollectClusterTarget{ObjectMeta: metav1.ObjectMeta{Name: "all"}, Spec: v1alpha1.KollectClusterTargetSpec{
		NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}}
	cfg, err := ConfigForClusterTarget(ct, profile(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(cfg, extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	row, err := c.Evaluate(deploy("prod-1", "api", nil), &selection.Namespace{Name: "prod-1", Labels: map[string]string{"env": "prod"}})
	if err != nil || row == nil {
		t.Fatalf("Evaluate = %v, %v", row, err)
	}
	if row.TargetNamespace != "" || !c.Key("u").ClusterTarget {
		t.Errorf("cluster target row %+v, key %+v", row, c.Key("u"))
	}
	if row, _ := c.Evaluate(deploy("dev", "api", nil), &selection.Namespace{Name: "dev"}); row != nil {
		t.Errorf("a namespace outside the selector was collected: %+v", row)
	}
}

func TestABareProfileRefCompilesLikeAnObject(t *testing.T) {
	var bare, object v1alpha1.KollectTarget
	if err := json.Unmarshal([]byte(`{"metadata":{"namespace":"team-a","name":"t"},"spec":{"profileRef":"images"}}`), &bare); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"metadata":{"namespace":"team-a","name":"t"},"spec":{"profileRef":{"name":"images"}}}`), &object); err != nil {
		t.Fatal(err)
	}
	want, err := ConfigForTarget(&object, profile(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ConfigForTarget(&bare, profile(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("compiled config (-object +bare):\n%s", d)
	}
	if b, _ := json.Marshal(bare.Spec.ProfileRef); string(b) != `"images"` {
		t.Errorf("the target passed in was changed: profileRef %s", b)
	}
}

// TestCompiledCarriesTheDeclaredAttributeTypes: the collector writes the
// Profile's declared types beside each row; an attribute without a type is
// any (the API default).
func TestCompiledCarriesTheDeclaredAttributeTypes(t *testing.T) {
	c := compiled(t, &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "apps"},
		Spec: v1alpha1.KollectTargetSpec{ProfileRef: v1alpha1.ProfileReference{Name: "images"}}}, nil)
	if got, want := string(c.AttributeTypes), `{"apiToken":"any","image":"string"}`; got != want {
		t.Errorf("attribute types %s, want %s", got, want)
	}
}
