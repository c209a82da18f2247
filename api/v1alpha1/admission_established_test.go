package v1alpha1_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// testEstablishedSpellings creates every file of testdata/established (the
// spellings of the established v1alpha1 API) with strict field validation,
// reads it back as a typed object and, when testdata/canonical holds a twin
// of the same name, checks that both normalise to the same spec.
func testEstablishedSpellings(t *testing.T, c client.Client) {
	files, err := filepath.Glob("testdata/established/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no established fixtures (%v)", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name+" is accepted and normalises like its canonical twin", func(t *testing.T) {
			est := createTyped(t, c, f, "est-"+name)
			v1alpha1.Normalize(est)
			twin := filepath.Join("testdata/canonical", filepath.Base(f))
			if _, err := os.Stat(twin); err != nil {
				return
			}
			canon := createTyped(t, c, twin, "canon-"+name)
			v1alpha1.Normalize(canon)
			if d := cmp.Diff(specOf(t, canon), specOf(t, est)); d != "" {
				t.Errorf("normalised spec differs from the canonical twin (-canonical +established):\n%s", d)
			}
		})
	}
}

// createTyped creates the one object of file in a new namespace and returns
// it as the server stored it, decoded into its Go type.
func createTyped(t *testing.T, c client.Client, file, ns string) runtime.Object {
	t.Helper()
	docs := readDocs(t, file)
	if len(docs) != 1 {
		t.Fatalf("%s holds %d objects, want 1", file, len(docs))
	}
	obj := docs[0]
	obj.SetNamespace(createNamespace(t, c, ns))
	if err := c.Create(context.Background(), obj); err != nil {
		t.Fatalf("create %s: %v", file, err)
	}
	typed, err := testenv.Scheme().New(obj.GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), typed.(client.Object)); err != nil {
		t.Fatalf("get %s as a typed object: %v", file, err)
	}
	return typed
}

// specOf returns the object's spec as the generic JSON value it encodes to,
// so that two specs compare by what they mean on the wire.
func specOf(t *testing.T, obj runtime.Object) any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m["spec"]
}

// TestNormalizeKeepsMeaning pins the normal forms without a server.
func TestNormalizeKeepsMeaning(t *testing.T) {
	tests := []struct {
		name             string
		established, can string
		into             func() runtime.Object
	}{
		{"a bare profileRef becomes an object with the name",
			`{"spec":{"profileRef":"apps"}}`, `{"spec":{"profileRef":{"name":"apps"}}}`,
			func() runtime.Object { return &v1alpha1.KollectTarget{} }},
		{"sinkRefs alone restricts every family to its names",
			`{"spec":{"sinkRefs":["b","a"]}}`,
			`{"spec":{"snapshotSinkRefs":["a","b"],"databaseSinkRefs":["a","b"],"eventSinkRefs":["a","b"]}}`,
			func() runtime.Object { return &v1alpha1.KollectScope{} }},
		{"an empty sinkRefs allows no sink of a family without its own list",
			`{"spec":{"sinkRefs":[],"eventSinkRefs":["k"]}}`,
			`{"spec":{"snapshotSinkRefs":[],"databaseSinkRefs":[],"eventSinkRefs":["k"]}}`,
			func() runtime.Object { return &v1alpha1.KollectScope{} }},
		{"a scope without sinkRefs keeps its lists",
			`{"spec":{"databaseSinkRefs":["pg"]}}`, `{"spec":{"databaseSinkRefs":["pg"]}}`,
			func() runtime.Object { return &v1alpha1.KollectScope{} }},
		{"a cluster scope folds sinkRefs too",
			`{"spec":{"sinkRefs":["a"]}}`,
			`{"spec":{"snapshotSinkRefs":["a"],"databaseSinkRefs":["a"],"eventSinkRefs":["a"]}}`,
			func() runtime.Object { return &v1alpha1.KollectClusterScope{} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			est, can := tc.into(), tc.into()
			if err := json.Unmarshal([]byte(tc.established), est); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.can), can); err != nil {
				t.Fatal(err)
			}
			v1alpha1.Normalize(est)
			if d := cmp.Diff(specOf(t, can), specOf(t, est), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
