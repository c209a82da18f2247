package informers

import (
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// largeDeployment is a realistic Deployment as the API server serves it
// after kubectl apply and a controller's status updates: two containers,
// the last-applied annotation, managedFields of three managers and a
// status; about 8 KB of JSON.
func largeDeployment(t testing.TB) []byte {
	t.Helper()
	d := realisticDeployment("shop", "cart")
	d.UID, d.ResourceVersion, d.Generation = "0000-large", "123456", 7
	fields := func(prefix string) *metav1.FieldsV1 {
		b, _ := json.Marshal(map[string]any{"f:metadata": map[string]any{"f:annotations": map[string]any{".": map[string]any{},
			"f:kubectl.kubernetes.io/last-applied-configuration": map[string]any{}}, "f:labels": map[string]any{".": map[string]any{},
			"f:app.kubernetes.io/name": map[string]any{}, "f:team": map[string]any{}}},
			"f:spec": map[string]any{"f:replicas": map[string]any{}, "f:template": map[string]any{"f:spec": map[string]any{
				"f:containers": map[string]any{`k:{"name":"app"}`: map[string]any{".": map[string]any{}, "f:env": map[string]any{},
					"f:image": map[string]any{}, "f:livenessProbe": map[string]any{}, "f:readinessProbe": map[string]any{},
					"f:resources": map[string]any{}, "f:volumeMounts": map[string]any{}}, `k:{"name":"sidecar"}`: map[string]any{}}}}},
			"f:status": map[string]any{"f:" + prefix: map[string]any{}}})
		return metav1.NewFieldsV1(string(b))
	}
	for _, m := range []string{"kubectl-client-side-apply", "kube-controller-manager", "argocd-controller"} {
		d.ManagedFields = append(d.ManagedFields, metav1.ManagedFieldsEntry{Manager: m, Operation: metav1.ManagedFieldsOperationUpdate,
			APIVersion: "apps/v1", FieldsType: "FieldsV1", FieldsV1: fields(m)})
	}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: 7, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: "True", Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability."},
			{Type: appsv1.DeploymentProgressing, Status: "True", Reason: "NewReplicaSetAvailable", Message: `ReplicaSet "cart-7d9f8b6c5d" has successfully progressed.`}}}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkObjectPath measures the informer's share of the collector's
// per-object CPU for the load test's Deployment (~2.5 KB served) and a
// large one (~8 KB, with managedFields), with the load test's Profile:
// decoding what the API server sent into the cached object, and the
// rebuild the engine reads once per event. "clientgo" is the way objects
// reached the cache before the informer decoded them itself: client-go's
// unstructured decoding, then the transform. Run it with -benchtime 2000x.
func BenchmarkObjectPath(b *testing.B) {
	req := Requirement{Fields: loadProfileFields(b)}
	for name, served := range map[string][]byte{"load": servedLoadDeployment(b, 3), "large": largeDeployment(b)} {
		b.Run(name+"/clientgo", func(b *testing.B) {
			tf := req.transform()
			b.ReportAllocs()
			b.SetBytes(int64(len(served)))
			for b.Loop() {
				u, err := runtime.Decode(unstructured.UnstructuredJSONScheme, served)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tf(u); err != nil {
					b.Fatal(err)
				}
			}
		})
		d := req.decoder()
		b.Run(name+"/decode", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(served)))
			for b.Loop() {
				if _, err := d.decode(served); err != nil {
					b.Fatal(err)
				}
			}
		})
		cached, err := d.decode(served)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/rebuild", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := AsUnstructured(cached); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
