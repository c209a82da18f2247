package extract

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

var deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

var secretGVK = schema.GroupVersionKind{Version: "v1", Kind: "Secret"}

// loadObject decodes testdata/name as the API machinery does: integers become int64.
func loadObject(t testing.TB, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return decodeObject(t, string(data))
}

func decodeObject(t testing.TB, js string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := utiljson.Unmarshal([]byte(js), &obj); err != nil {
		t.Fatalf("decode %q: %v", js, err)
	}
	return obj
}

func mustCompile(t testing.TB, spec Spec) *Extractor {
	t.Helper()
	e, errs := Compile(spec, Options{})
	if len(errs) > 0 {
		t.Fatalf("Compile: %v", errs.ToAggregate())
	}
	return e
}

func attrs(list ...Attribute) Spec {
	return Spec{GVK: deploymentGVK, Attributes: list}
}
