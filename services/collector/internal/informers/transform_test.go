package informers

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"kollect.dev/kollect/pkg/extract"
)

// imageFields are the paths of a Profile reading the first image and the
// replicas.
func imageFields() *extract.FieldSet {
	return extract.NewFieldSet([]string{"spec", "template", "spec", "containers", "image"}, []string{"spec", "replicas"})
}

func unstructuredOf(t testing.TB, obj runtime.Object) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func TestRequirementCovers(t *testing.T) {
	small := Requirement{Fields: extract.NewFieldSet([]string{"spec", "replicas"})}
	big := Requirement{Fields: extract.NewFieldSet([]string{"spec"})}
	cases := []struct {
		name string
		have Requirement
		want Requirement
		ok   bool
	}{
		{"a set covers itself", small, small, true},
		{"a parent path covers a child path", big, small, true},
		{"a child path does not cover its parent", small, big, false},
		{"the whole object covers any set", Requirement{Whole: true}, big, true},
		{"no set covers the whole object", big, Requirement{Whole: true}, false},
		{"any set covers no fields", small, Requirement{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.have.Covers(c.want); got != c.ok {
				t.Errorf("Covers = %v, want %v", got, c.ok)
			}
		})
	}
}

func TestTransformKeepsIdentityAndWhatTargetsRead(t *testing.T) {
	d := unstructuredOf(t, realisticDeployment("shop", "cart"))
	d.SetUID("u-1")
	d.SetResourceVersion("42")
	d.SetManagedFields(nil)
	d.Object["metadata"].(map[string]any)["managedFields"] = []any{map[string]any{"manager": "kubectl"}}
	cases := []struct {
		name        string
		req         Requirement
		keep, drops [][]string
	}{
		{"a profile keeps its fields and the identity", Requirement{Fields: imageFields()},
			[][]string{{"metadata", "uid"}, {"metadata", "labels"}, {"metadata", "resourceVersion"}, {"spec", "replicas"}},
			[][]string{{"metadata", "managedFields"}, {"spec", "strategy"}, {"spec", "selector"},
				{"metadata", "annotations"}}},
		{"a profile reading one annotation keeps that one only",
			Requirement{Fields: extract.NewFieldSet([]string{"metadata", "annotations", "deployment.kubernetes.io/revision"})},
			[][]string{{"metadata", "annotations", "deployment.kubernetes.io/revision"}},
			[][]string{{"metadata", "annotations", lastApplied}, {"spec"}}},
		{"a profile reading annotations keeps last-applied", Requirement{Fields: extract.NewFieldSet([]string{"metadata", "annotations"})},
			[][]string{{"metadata", "annotations", lastApplied}}, [][]string{{"metadata", "managedFields"}, {"spec"}}},
		{"the whole object keeps all but managedFields", Requirement{Whole: true},
			[][]string{{"spec", "strategy"}, {"metadata", "annotations", lastApplied}}, [][]string{{"metadata", "managedFields"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := transformed(t, c.req, d.DeepCopy()).Object
			for _, p := range c.keep {
				if _, ok, _ := unstructured.NestedFieldNoCopy(got, p...); !ok {
					t.Errorf("%v was dropped", p)
				}
			}
			for _, p := range c.drops {
				if _, ok, _ := unstructured.NestedFieldNoCopy(got, p...); ok {
					t.Errorf("%v was kept", p)
				}
			}
		})
	}
}

// transformed applies req's transform to u and rebuilds the cached object.
func transformed(t testing.TB, req Requirement, u *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	out, err := req.transform()(u)
	if err != nil {
		t.Fatal(err)
	}
	got, err := AsUnstructured(out)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// BenchmarkTransform measures the informer transform of the image Profile
// on a realistic Deployment and reports the JSON size of the object before
// and after it.
func BenchmarkTransform(b *testing.B) {
	d := unstructuredOf(b, realisticDeployment("shop", "cart"))
	d.Object["metadata"].(map[string]any)["managedFields"] = managedFieldsOf(b)
	before, _ := json.Marshal(d.Object)
	req := Requirement{Fields: imageFields()}
	tf := req.transform()
	after, _ := json.Marshal(transformed(b, req, d.DeepCopy()).Object)
	objs := make([]*unstructured.Unstructured, b.N)
	for i := range objs {
		objs[i] = d.DeepCopy()
	}
	b.ResetTimer()
	for i := range b.N {
		_, _ = tf(objs[i])
	}
	b.ReportMetric(float64(len(before)), "bytes-before/object")
	b.ReportMetric(float64(len(after)), "bytes-after/object")
}

// managedFieldsOf returns managedFields as the API server writes them for a
// client-side apply of the realistic Deployment (one Update entry covering
// every field set).
func managedFieldsOf(t testing.TB) []any {
	var v []any
	if err := json.Unmarshal([]byte(`[{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"apps/v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}},"f:labels":{".":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{},"f:app.kubernetes.io/version":{},"f:team":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:annotations":{".":{},"f:prometheus.io/scrape":{}},"f:labels":{".":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{},"f:app.kubernetes.io/version":{},"f:team":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:args":{},"f:env":{".":{},"k:{\"name\":\"CACHE_URL\"}":{".":{},"f:name":{},"f:value":{}},"k:{\"name\":\"DB_HOST\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:imagePullPolicy":{},"f:livenessProbe":{},"f:name":{},"f:ports":{},"f:readinessProbe":{},"f:resources":{},"f:volumeMounts":{}},"k:{\"name\":\"sidecar\"}":{".":{},"f:args":{},"f:env":{},"f:image":{},"f:name":{},"f:ports":{},"f:resources":{}}},"f:serviceAccountName":{},"f:volumes":{}}}}}}]`), &v); err != nil {
		t.Fatal(err)
	}
	return v
}
