package informers

import (
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"kollect.dev/kollect/pkg/extract"
)

var heapObjects = flag.Int("heap-objects", 20000, "Deployments BenchmarkCachedDeploymentHeap caches")

// loadProfileFields are the fields of the load test's Deployment Profile
// (loadtest/resources.go).
func loadProfileFields(t testing.TB) *extract.FieldSet {
	t.Helper()
	e, errs := extract.Compile(extract.Spec{
		GVK: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Attributes: []extract.Attribute{
			{Name: "seq", Path: "$.metadata.annotations['loadtest.kollect.dev/seq']", Type: extract.TypeString},
			{Name: "images", Path: "$.spec.template.spec.containers[*].image", Type: extract.TypeList},
			{Name: "replicas", Path: "$.spec.replicas", Type: extract.TypeInt},
			{Name: "team", Path: "$.metadata.labels.team", Type: extract.TypeString, Optional: true},
			{Name: "owner", Path: "$.metadata.annotations['example.com/owner']", Type: extract.TypeString, Optional: true},
		},
	}, extract.Options{})
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	return e.Fields()
}

// servedLoadDeployment is load object i (loadtest/objects.go, an odd index
// is a Deployment) as the API server serves it: defaults, managedFields
// and status filled in.
func servedLoadDeployment(t testing.TB, i int) []byte {
	t.Helper()
	ns, name := fmt.Sprintf("load-%04d", i/100), fmt.Sprintf("app-%06d", i)
	sel := map[string]string{"app": name}
	c := func(n, img string, port int32) corev1.Container {
		return corev1.Container{Name: n, Image: img, ImagePullPolicy: corev1.PullIfNotPresent,
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			Ports: []corev1.ContainerPort{{Name: n, ContainerPort: port, Protocol: corev1.ProtocolTCP}},
			Env: []corev1.EnvVar{{Name: "LOG_LEVEL", Value: "info"}, {Name: "SERVICE_NAME", Value: name},
				{Name: "REGION", Value: "eu-west-1"}},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: "/healthz", Port: intstr.FromInt32(port), Scheme: corev1.URISchemeHTTP}},
				PeriodSeconds: 10, TimeoutSeconds: 1, SuccessThreshold: 1, FailureThreshold: 3},
		}
	}
	containers := []corev1.Container{c("app", fmt.Sprintf("registry.example.com/team-%02d/svc-%04d:1.%d.%d", i%23, i/4, i%9, i%13), 8080)}
	if i%3 == 0 {
		containers = append(containers, c("envoy", "envoyproxy/envoy:v1.30.1", 9901))
	}
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	d := &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Generation: 1, CreationTimestamp: created,
			UID:             types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)),
			ResourceVersion: fmt.Sprint(1000000 + i),
			Labels: map[string]string{"loadtest.kollect.dev/tier": "100k", "app.kubernetes.io/name": fmt.Sprintf("svc-%04d", i/4),
				"app.kubernetes.io/part-of": fmt.Sprintf("product-%02d", i%17), "team": fmt.Sprintf("team-%02d", i%23)},
			Annotations: map[string]string{"loadtest.kollect.dev/seq": "0", "example.com/owner": fmt.Sprintf("owner-%03d@example.com", i%211),
				"example.com/runbook":               fmt.Sprintf("https://runbooks.example.com/services/svc-%04d", i/4),
				"deployment.kubernetes.io/revision": "1"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "loadtest", Operation: metav1.ManagedFieldsOperationUpdate,
				APIVersion: "apps/v1", Time: &created, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(
					`{"f:metadata":{"f:annotations":{".":{},"f:example.com/owner":{},"f:loadtest.kollect.dev/seq":{}},"f:labels":{".":{},"f:team":{}}},"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{}}}}}`)}},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(1 + i%3)), Selector: &metav1.LabelSelector{MatchLabels: sel},
			RevisionHistoryLimit: ptr.To(int32(10)), ProgressDeadlineSeconds: ptr.To(int32(600)),
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec: corev1.PodSpec{Containers: containers, ServiceAccountName: "default", RestartPolicy: corev1.RestartPolicyAlways,
					DNSPolicy: corev1.DNSClusterFirst, SchedulerName: "default-scheduler", TerminationGracePeriodSeconds: ptr.To(int64(30))}},
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: int32(1 + i%3), UpdatedReplicas: int32(1 + i%3)},
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkCachedDeploymentHeap reports the live heap an informer cache
// holds per Deployment shaped like the load test's, transformed for the
// load test's Profile: the compact objects, the cache's items and its
// namespace index. Run it with -benchtime 1x (-heap-objects sets how many).
func BenchmarkCachedDeploymentHeap(b *testing.B) {
	tf := Requirement{Fields: loadProfileFields(b)}.transform()
	n := *heapObjects
	var perObject float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		for i := range n {
			u := decode(b, string(servedLoadDeployment(b, 2*i+1)))
			obj, err := tf(u)
			if err != nil {
				b.Fatal(err)
			}
			if err := store.Add(obj); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if got := len(store.ListKeys()); got != n {
			b.Fatalf("cached %d objects, want %d", got, n)
		}
		perObject = float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
		runtime.KeepAlive(store)
	}
	b.ReportMetric(perObject, "heap-B/deployment")
}

// TestLoadDeploymentIsCachedWithWhatTheProfileReads guards the benchmark's
// input: the compact object rebuilds to what the Profile reads and nothing
// of what it does not.
func TestLoadDeploymentIsCachedWithWhatTheProfileReads(t *testing.T) {
	obj, err := Requirement{Fields: loadProfileFields(t)}.transform()(decode(t, string(servedLoadDeployment(t, 3))))
	if err != nil {
		t.Fatal(err)
	}
	u, err := AsUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][]string{{"metadata", "annotations", "example.com/owner"}, {"metadata", "labels", "team"},
		{"spec", "replicas"}, {"metadata", "uid"}} {
		if _, ok, _ := unstructured.NestedFieldNoCopy(u.Object, p...); !ok {
			t.Errorf("%v was dropped", p)
		}
	}
	for _, p := range [][]string{{"metadata", "annotations", "example.com/runbook"}, {"metadata", "managedFields"},
		{"status"}, {"spec", "strategy"}, {"metadata", "creationTimestamp"}} {
		if _, ok, _ := unstructured.NestedFieldNoCopy(u.Object, p...); ok {
			t.Errorf("%v was kept", p)
		}
	}
}
