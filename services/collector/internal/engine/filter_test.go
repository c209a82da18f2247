package engine

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/target"
)

// selecting is config of Target ns/name with an object selection.
func selecting(t *testing.T, ns, name string, sel v1alpha1.ObjectSelection) busv1.TargetConfig {
	t.Helper()
	tgt := &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Generation: 1},
		Spec: v1alpha1.KollectTargetSpec{ProfileRef: v1alpha1.ProfileReference{Name: "images"}, ObjectSelection: sel,
			NamespaceFilters: v1alpha1.NamespaceFilters{IncludedNamespaces: []string{ns}}}}
	prof := &v1alpha1.KollectProfile{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "images", Generation: 1},
		Spec: v1alpha1.KollectProfileSpec{
			TargetGVK:  v1alpha1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Attributes: []v1alpha1.Attribute{{Name: "image", Path: "$.spec.image", Type: "string"}},
		}}
	cfg, err := target.ConfigForTarget(tgt, prof, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Access = &busv1.TargetAccess{AllNamespaces: true}
	return cfg
}

// TestTargetsSharingASelectorPassItToTheInformer: the informer of a GVK
// filters on the API server only while every Target of the GVK selects
// its objects by the same selector.
func TestTargetsSharingASelectorPassItToTheInformer(t *testing.T) {
	f := newFixture(t, "team-a", "team-b", "team-c")
	ctx := context.Background()
	if err := f.e.Complete(ctx, true); err != nil {
		t.Fatal(err)
	}
	web := v1alpha1.ObjectSelection{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
	want := func(label, field string) {
		t.Helper()
		req, _ := f.inf.requirement(deployments)
		if req.LabelSelector != label || req.FieldSelector != field {
			t.Errorf("requirement selectors = %q, %q; want %q, %q", req.LabelSelector, req.FieldSelector, label, field)
		}
	}
	for _, ns := range []string{"team-a", "team-b"} {
		if err := f.e.Put(ctx, selecting(t, ns, "web", web)); err != nil {
			t.Fatal(err)
		}
	}
	want("app=web", "")
	if err := f.e.Put(ctx, selecting(t, "team-c", "one", v1alpha1.ObjectSelection{Names: []string{"api"}})); err != nil {
		t.Fatal(err)
	}
	want("", "")
	if err := f.e.Delete(ctx, targetRef(t, "team-c", "one")); err != nil {
		t.Fatal(err)
	}
	want("app=web", "")
	if err := f.e.Delete(ctx, targetRef(t, "team-a", "web")); err != nil {
		t.Fatal(err)
	}
	if err := f.e.Delete(ctx, targetRef(t, "team-b", "web")); err != nil {
		t.Fatal(err)
	}
	if err := f.e.Put(ctx, selecting(t, "team-c", "one", v1alpha1.ObjectSelection{Names: []string{"api"}})); err != nil {
		t.Fatal(err)
	}
	want("", "metadata.name=api")
	if err := f.e.Put(ctx, config(t, "team-a", "all", false)); err != nil {
		t.Fatal(err)
	}
	want("", "")
}
