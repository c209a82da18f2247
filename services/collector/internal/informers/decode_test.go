package informers

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"kollect.dev/kollect/pkg/extract"
)

// requirements are the Requirements the decoder is checked with: what the
// load test's Profile reads, images, annotations whole, one annotation,
// managedFields named, and the whole object.
func requirements(t testing.TB) map[string]Requirement {
	return map[string]Requirement{
		"the load profile":          {Fields: loadProfileFields(t)},
		"images":                    {Fields: imageFields()},
		"annotations":               {Fields: extract.NewFieldSet([]string{"metadata", "annotations"})},
		"one annotation":            {Fields: extract.NewFieldSet([]string{"metadata", "annotations", "deployment.kubernetes.io/revision"})},
		"managedFields":             {Fields: extract.NewFieldSet([]string{"metadata", "managedFields"}, []string{"spec", "int"})},
		"touched spec":              {Fields: extract.NewFieldSet([]string{"spec", "list", "k"}, []string{"rules", "verbs"})},
		"the whole object":          {Whole: true},
		"no fields beyond identity": {},
	}
}

// objectsJSON are objects as the API server serves them.
func objectsJSON(t testing.TB) map[string]string {
	realistic, err := json.Marshal(realisticDeployment("shop", "cart"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"a load deployment":       string(servedLoadDeployment(t, 3)),
		"a realistic deployment":  string(realistic),
		"numbers":                 withNumbers,
		"a cluster-scoped object": clusterScoped,
		"a non-string label":      oddLabels,
		"no metadata":             noMetadata,
		"kind after the fields":   `{"spec":{"int":1,"x":2},"metadata":{"name":"late","managedFields":[{"manager":"m"}],"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}},"kind":"Widget","apiVersion":"example.com/v1"}`,
	}
}

// TestDecoderCachesWhatTheTransformCached decodes every object both ways —
// client-go's decoding then the transform, and the informer's decoder —
// and requires the same pruned content, the same types of numbers
// included: the rows extracted from it are then the same bytes.
func TestDecoderCachesWhatTheTransformCached(t *testing.T) {
	for rname, req := range requirements(t) {
		for oname, data := range objectsJSON(t) {
			t.Run(rname+"/"+oname, func(t *testing.T) {
				want := transformed(t, req, decode(t, data)).Object
				obj, err := req.decoder().decode([]byte(data))
				if err != nil {
					t.Fatal(err)
				}
				got, err := AsUnstructured(obj)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got.Object); d != "" {
					t.Errorf("decoded content differs (-transform +decoder):\n%s", d)
				}
			})
		}
	}
}

// TestDecoderReadsLists decodes a list whose items carry no kind (as the
// API server lists built-in kinds) and one whose items come before its
// kind (as it lists custom resources): the items are what decoding each
// object gives, with the list's kind, and the list metadata is read.
func TestDecoderReadsLists(t *testing.T) {
	req := Requirement{Fields: loadProfileFields(t)}
	var items []string
	for i := range 3 {
		items = append(items, string(servedLoadDeployment(t, 2*i+1)))
	}
	noKind := make([]string, len(items))
	for i, it := range items {
		var m map[string]any
		if err := json.Unmarshal([]byte(it), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "kind")
		delete(m, "apiVersion")
		b, _ := json.Marshal(m)
		noKind[i] = string(b)
	}
	lists := map[string]string{
		"built-in": `{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"77","continue":"c1","remainingItemCount":5},"items":[` +
			strings.Join(noKind, ",") + `]}`,
		"custom": `{"apiVersion":"apps/v1","items":[` + strings.Join(items, ",") +
			`],"kind":"DeploymentList","metadata":{"resourceVersion":"77","continue":"c1","remainingItemCount":5}}`,
	}
	for name, data := range lists {
		t.Run(name, func(t *testing.T) {
			obj, err := req.decoder().decode([]byte(data))
			if err != nil {
				t.Fatal(err)
			}
			la, err := meta.ListAccessor(obj)
			if err != nil {
				t.Fatal(err)
			}
			if la.GetResourceVersion() != "77" || la.GetContinue() != "c1" {
				t.Errorf("list metadata: resourceVersion %q continue %q", la.GetResourceVersion(), la.GetContinue())
			}
			got, err := meta.ExtractList(obj)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(items) {
				t.Fatalf("%d items, want %d", len(got), len(items))
			}
			for i, it := range items {
				want := transformed(t, req, decode(t, it)).Object
				u, err := AsUnstructured(got[i])
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, u.Object); d != "" {
					t.Errorf("item %d differs (-transform +decoder):\n%s", i, d)
				}
			}
		})
	}
}

// TestDecoderReadsWatchEventsAndStatuses covers what the reflector needs
// besides objects: watch events, the bookmark ending a watch list's
// initial events (its annotation is kept whatever the Targets read), and
// errors as a Status the API error helpers recognise.
func TestDecoderReadsWatchEventsAndStatuses(t *testing.T) {
	d := Requirement{Fields: imageFields()}.decoder()
	var ev metav1.WatchEvent
	bookmark := `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}`
	if _, _, err := d.Decode([]byte(`{"type":"BOOKMARK","object":`+bookmark+`}`), nil, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Type != "BOOKMARK" || string(ev.Object.Raw) != bookmark {
		t.Fatalf("event %q %s", ev.Type, ev.Object.Raw)
	}
	obj, err := runtime.Decode(d, ev.Object.Raw)
	if err != nil {
		t.Fatal(err)
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	if m.GetResourceVersion() != "12" || m.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
		t.Errorf("bookmark: resourceVersion %q annotations %v", m.GetResourceVersion(), m.GetAnnotations())
	}
	gone := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version","reason":"Expired","code":410}`
	obj, err = runtime.Decode(d, []byte(gone))
	if err != nil {
		t.Fatal(err)
	}
	if err := apierrors.FromObject(obj); !apierrors.IsResourceExpired(err) {
		t.Errorf("watch error event: %v, want a resource expired error", err)
	}
	forbidden := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no","reason":"Forbidden","code":403}`
	status := schema.GroupVersionKind{Version: "v1", Kind: "Status"}
	obj, _, err = d.Decode([]byte(forbidden), &status, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := obj.(*metav1.Status); !ok || s.Reason != metav1.StatusReasonForbidden {
		t.Errorf("error response decoded as %T %v", obj, obj)
	}
}

func ExampleRequirement_decoder() {
	obj, _ := Requirement{Fields: extract.NewFieldSet([]string{"spec", "replicas"})}.decoder().decode([]byte(
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop","managedFields":[{}]},"spec":{"replicas":3,"paused":false},"status":{}}`))
	u, _ := AsUnstructured(obj)
	b, _ := json.Marshal(u.Object)
	fmt.Println(string(b))
	// Output: {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"replicas":3}}
}
