package extract

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"kollect.dev/kollect/pkg/testenv/golden"
)

const modesConfigMap = `{"apiVersion": "v1", "kind": "ConfigMap",
  "metadata": {"name": "settings", "namespace": "shop", "uid": "c0ffee00-0000-4000-8000-000000000001",
    "resourceVersion": "42", "creationTimestamp": "2025-03-14T09:26:53Z", "labels": {"app": "checkout"},
    "annotations": {"example.com/owner": "payments", "kubectl.kubernetes.io/last-applied-configuration": "{}"},
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "checkout", "uid": "5f0c2b1e-8d7a-4c1b-9b8e-2a4f6c1d3e5f"}]},
  "data": {"mode": "fast"}, "binaryData": {"blob": "AAEC"}, "immutable": true}`

const modesSecret = `{"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
  "metadata": {"name": "db", "namespace": "shop", "uid": "c0ffee00-0000-4000-8000-000000000002",
    "resourceVersion": "43", "creationTimestamp": "2025-03-14T09:26:53Z", "labels": {"app": "checkout"},
    "annotations": {"example.com/rotated": "2025-03-01"}},
  "data": {"host": "ZGI=", "password": "aHVudGVyMg=="}, "stringData": {"user": "app"}}`

// Each include mode pinned on a Deployment, a ConfigMap and a Secret (with
// the full-export opt-in, so All exports its data), with dedupeIdentity on
// (the default) and off.
func TestIncludeModesGolden(t *testing.T) {
	objects := []struct {
		name string
		gvk  schema.GroupVersionKind
		obj  func(t *testing.T) map[string]any
	}{
		{"deployment", deploymentGVK, func(t *testing.T) map[string]any { return loadObject(t, "deployment.json") }},
		{"configmap", schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, func(t *testing.T) map[string]any { return decodeObject(t, modesConfigMap) }},
		{"secret", secretGVK, func(t *testing.T) map[string]any { return decodeObject(t, modesSecret) }},
	}
	no := false
	for _, o := range objects {
		for _, mode := range []Include{IncludeMetadataOnly, IncludeSpecOnly, IncludeStatusOnly, IncludeSpecAndStatus, IncludeAll} {
			for _, dedupe := range []bool{true, false} {
				name := o.name + "-" + string(mode)
				x := &Export{Mode: ExportResource, Include: mode}
				if !dedupe {
					name += "-identity"
					x.DedupeIdentity = &no
				}
				t.Run(name, func(t *testing.T) {
					spec := Spec{GVK: o.gvk, AllowFullResourceExport: o.gvk == secretGVK, Export: x}
					b, err := json.MarshalIndent(embedded(t, spec, o.obj(t)), "", "  ")
					if err != nil {
						t.Fatal(err)
					}
					golden.Check(t, filepath.Join("testdata", "include", name+".json"), append(b, '\n'))
				})
			}
		}
	}
}
