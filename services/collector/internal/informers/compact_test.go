package informers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"kollect.dev/kollect/pkg/extract"
)

// decode decodes an object as client-go's dynamic client does.
func decode(t testing.TB, data string) *unstructured.Unstructured {
	t.Helper()
	obj, err := runtime.Decode(unstructured.UnstructuredJSONScheme, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*unstructured.Unstructured)
}

// pruned is what the cache held before objects were compact: the object
// pruned to the identity and the Targets' fields, without managedFields
// and, unless read, the last-applied annotation.
func pruned(req Requirement, u *unstructured.Unstructured) map[string]any {
	content := runtime.DeepCopyJSON(u.Object)
	if !req.Whole {
		keep := extract.NewFieldSet(identity...)
		if req.Fields != nil {
			keep.Union(req.Fields)
		}
		content = extract.Prune(content, keep)
	}
	if md, ok := content["metadata"].(map[string]any); ok {
		if req.Whole || !covers(req.Fields, managedFieldsPath) {
			delete(md, "managedFields")
		}
		if a, ok := md["annotations"].(map[string]any); ok && !req.Whole && !covers(req.Fields, lastAppliedPath) {
			delete(a, lastApplied)
			if len(a) == 0 {
				delete(md, "annotations")
			}
		}
	}
	return content
}

const (
	withNumbers = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns","uid":"u-1",
		"resourceVersion":"7","labels":{"a":"1","b":"<&>"},"annotations":{"note":"x"},"generation":3},
		"spec":{"int":42,"big":9007199254740993,"neg":-7,"half":0.5,"huge":1e300,"zero":0,"null":null,"yes":true,
		"list":[1,"two",[3.25],{"k":"v"}],"empty":{},"none":[],"text":"é <b>&amp;</b>"}}`
	clusterScoped = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"reader","uid":"u-2",
		"resourceVersion":"9","labels":{}},"rules":[{"verbs":["get"],"resources":["pods"]}]}`
	oddLabels = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns","uid":"u-3",
		"resourceVersion":"1","labels":{"n":1}},"data":{"k":"v"}}`
	noMetadata = `{"apiVersion":"example.com/v1","kind":"Thing","spec":{"a":1}}`
)

func TestCompactObjectsRebuildToThePrunedObject(t *testing.T) {
	deployment := unstructuredOf(t, realisticDeployment("shop", "cart"))
	deployment.SetUID("u-0")
	deployment.SetResourceVersion("42")
	deployment.Object["metadata"].(map[string]any)["managedFields"] = managedFieldsOf(t)
	cases := []struct {
		name string
		obj  *unstructured.Unstructured
		req  Requirement
	}{
		{"a Deployment pruned to a Profile's fields", deployment, Requirement{Fields: imageFields()}},
		{"a Deployment kept whole", deployment, Requirement{Whole: true}},
		{"a Deployment whose Profile reads its annotations", deployment,
			Requirement{Fields: extract.NewFieldSet([]string{"metadata", "annotations"})}},
		{"a Deployment whose Profile reads managedFields", deployment,
			Requirement{Fields: extract.NewFieldSet([]string{"metadata", "managedFields"})}},
		{"numbers, nulls, lists and escapes kept whole", decode(t, withNumbers), Requirement{Whole: true}},
		{"numbers pruned to a path", decode(t, withNumbers),
			Requirement{Fields: extract.NewFieldSet([]string{"spec", "big"}, []string{"spec", "list"})}},
		{"a cluster-scoped object with empty labels", decode(t, clusterScoped), Requirement{Whole: true}},
		{"labels that are not all strings stay as they are", decode(t, oddLabels), Requirement{Whole: true}},
		{"an object without metadata", decode(t, noMetadata), Requirement{Whole: true}},
		{"identity only", decode(t, withNumbers), Requirement{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := pruned(c.req, c.obj)
			input := c.obj.DeepCopy()
			out, err := c.req.transform()(input)
			if err != nil {
				t.Fatal(err)
			}
			o, ok := out.(*Object)
			if !ok {
				t.Fatalf("transform returned %T, want *Object", out)
			}
			got, err := o.Unstructured()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got.Object); diff != "" {
				t.Errorf("rebuilt object (-pruned +rebuilt):\n%s", diff)
			}
			if diff := cmp.Diff(c.obj.Object, input.Object); diff != "" {
				t.Errorf("the transform changed its input (-before +after):\n%s", diff)
			}
			u := &unstructured.Unstructured{Object: want}
			meta := map[string]any{"name": o.GetName(), "namespace": o.GetNamespace(), "uid": string(o.GetUID()),
				"resourceVersion": o.GetResourceVersion(), "labels": o.GetLabels(), "gvk": o.GroupVersionKind()}
			wantMeta := map[string]any{"name": u.GetName(), "namespace": u.GetNamespace(), "uid": string(u.GetUID()),
				"resourceVersion": u.GetResourceVersion(), "labels": u.GetLabels(), "gvk": u.GroupVersionKind()}
			if diff := cmp.Diff(wantMeta, meta); diff != "" {
				t.Errorf("metadata accessors (-unstructured +compact):\n%s", diff)
			}
			if again, _ := c.req.transform()(o); again != o {
				t.Error("transforming a compact object again did not pass it through")
			}
		})
	}
}

func TestCompactObjectCopiesAndEdits(t *testing.T) {
	out, err := Requirement{Whole: true}.transform()(decode(t, withNumbers))
	if err != nil {
		t.Fatal(err)
	}
	o := out.(*Object)
	before, _ := o.Unstructured()
	c := o.DeepCopyObject().(*Object)
	c.SetLabels(map[string]string{"z": "1"})
	c.SetAnnotations(map[string]string{"added": "yes"})
	c.SetGeneration(9)
	t.Run("a deep copy shares nothing with its original", func(t *testing.T) {
		after, _ := o.Unstructured()
		if diff := cmp.Diff(before.Object, after.Object); diff != "" {
			t.Errorf("editing the copy changed the original:\n%s", diff)
		}
	})
	t.Run("setters of fields kept as JSON edit them", func(t *testing.T) {
		if got := c.GetAnnotations(); !cmp.Equal(got, map[string]string{"added": "yes"}) {
			t.Errorf("annotations = %v", got)
		}
		if c.GetGeneration() != 9 || c.GetName() != "w" || c.GetLabels()["z"] != "1" {
			t.Errorf("generation %d, name %q, labels %v", c.GetGeneration(), c.GetName(), c.GetLabels())
		}
	})
}

// BenchmarkRebuild measures rebuilding a cached Deployment pruned to a
// Profile's fields, as every evaluation does.
func BenchmarkRebuild(b *testing.B) {
	d := unstructuredOf(b, realisticDeployment("shop", "cart"))
	out, err := Requirement{Fields: imageFields()}.transform()(d)
	if err != nil {
		b.Fatal(err)
	}
	o := out.(*Object)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := o.Unstructured(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(o.rest)), "json-bytes/object")
}
