package collector_test

import (
	"context"
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/target"
)

// profile returns a Profile of gvk with attributes given as name, path
// pairs.
func profile(ns, name string, gvk v1alpha1.GroupVersionKind, attrs ...v1alpha1.Attribute) *v1alpha1.KollectProfile {
	p := &v1alpha1.KollectProfile{Spec: v1alpha1.KollectProfileSpec{TargetGVK: gvk, Attributes: attrs}}
	p.Namespace, p.Name, p.Generation = ns, name, 1
	return p
}

func attr(name, path string) v1alpha1.Attribute { return v1alpha1.Attribute{Name: name, Path: path} }

var (
	deploymentGVK = v1alpha1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	configMapGVK  = v1alpha1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	namespaceGVK  = v1alpha1.GroupVersionKind{Version: "v1", Kind: "Namespace"}
	widgetGVK     = v1alpha1.GroupVersionKind{Group: "test.kollect.dev", Version: "v1", Kind: "Widget"}
)

// imageProfile extracts the first container's image and the replicas of
// Deployments.
func imageProfile(ns string) *v1alpha1.KollectProfile {
	return profile(ns, "images", deploymentGVK,
		attr("image", "$.spec.template.spec.containers[0].image"), attr("replicas", "$.spec.replicas"))
}

// targetConfig compiles a namespaced Target as control would.
func targetConfig(t testing.TB, ns, name string, generation int64, p *v1alpha1.KollectProfile, spec v1alpha1.KollectTargetSpec) busv1.TargetConfig {
	t.Helper()
	tg := &v1alpha1.KollectTarget{Spec: spec}
	tg.Namespace, tg.Name, tg.Generation, tg.UID = ns, name, generation, types.UID("uid-"+ns+"-"+name)
	tg.Spec.ProfileRef = v1alpha1.ProfileReference{Name: p.Name}
	cfg, err := target.ConfigForTarget(tg, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Access = &busv1.TargetAccess{AllNamespaces: true}
	return cfg
}

// clusterTargetConfig compiles a ClusterTarget as control would.
func clusterTargetConfig(t *testing.T, name string, p *v1alpha1.KollectProfile, spec v1alpha1.KollectClusterTargetSpec) busv1.TargetConfig {
	t.Helper()
	tg := &v1alpha1.KollectClusterTarget{Spec: spec}
	tg.Name, tg.Generation, tg.UID = name, 1, types.UID("uid-"+name)
	tg.Spec.ProfileRef = v1alpha1.NamespacedObjectReference{Namespace: p.Namespace, Name: p.Name}
	cfg, err := target.ConfigForClusterTarget(tg, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// in selects only the named namespaces.
func in(ns ...string) v1alpha1.KollectTargetSpec {
	return v1alpha1.KollectTargetSpec{NamespaceFilters: v1alpha1.NamespaceFilters{IncludedNamespaces: ns}}
}

// namespace creates a namespace with labels; it is deleted after the test.
func namespace(t testing.TB, name string, labels map[string]string) *corev1.Namespace {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	create(t, ns)
	t.Cleanup(func() { _ = kube.Client.Delete(context.Background(), ns) })
	return ns
}

// deployment returns a Deployment running image with replicas.
func deployment(ns, name, image string, replicas int32, labels map[string]string) *appsv1.Deployment {
	sel := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels,
			Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"big":"annotation"}`}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: image}}},
			},
		},
	}
}

func create(t testing.TB, obj client.Object) {
	t.Helper()
	if err := kube.Client.Create(t.Context(), obj); err != nil {
		t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
}

func update(t *testing.T, obj client.Object, mutate func()) {
	t.Helper()
	if err := kube.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	mutate()
	if err := kube.Client.Update(t.Context(), obj); err != nil {
		t.Fatalf("update %T %s: %v", obj, obj.GetName(), err)
	}
}

func remove(t *testing.T, obj client.Object) {
	t.Helper()
	if err := kube.Client.Delete(t.Context(), obj); err != nil {
		t.Fatalf("delete %T %s: %v", obj, obj.GetName(), err)
	}
}

// row is the row a Target has for an object.
func row(t *testing.T, cfg busv1.TargetConfig, d client.Object, attrs map[string]any) busv1.Row {
	t.Helper()
	var p v1alpha1.KollectProfileSpec
	if err := json.Unmarshal(cfg.Profile, &p); err != nil {
		t.Fatal(err)
	}
	gvk := p.TargetGVK
	return busv1.Row{TargetNamespace: cfg.Namespace, TargetName: cfg.Name, Namespace: d.GetNamespace(),
		Name: d.GetName(), UID: string(d.GetUID()), Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind,
		Attributes: attrs}
}
