package extract

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// FuzzCompile feeds arbitrary path strings to the compiler: it must return an Extractor or
// field errors, never panic, and a compiled path must evaluate without panicking.
func FuzzCompile(f *testing.F) {
	for _, p := range corpusPaths {
		f.Add(p, uint8(0))
	}
	for _, p := range []string{
		"{.spec.replicas}", "$.a['b.c'][?(@.x != 'y')]", "$.spec.containers[0:2]", "$..a[?(@.b > 1)]",
		"cel:size(object.spec.containers)", "cel:object.spec.containers.map(c, c.image)", "cel:object.?a.b.orValue(1)",
		"helm:release.chartName", "helm:release.nope", "$.a[-1]", "{$.a[*].b}", `$.a[?(@.b=="\")]`, "$[", "{", "cel:",
	} {
		f.Add(p, uint8(1))
	}
	obj := decodeObject(f, podObject)
	f.Fuzz(func(t *testing.T, path string, typ uint8) {
		spec := Spec{GVK: secretGVK, AllowSecretExtraction: true, Attributes: []Attribute{
			{Name: "v", Path: path, Type: Type(Types[int(typ)%len(Types)]), Optional: typ&0x80 != 0},
		}}
		e, errs := Compile(spec, Options{})
		if (e == nil) == (len(errs) == 0) {
			t.Fatalf("Compile(%q) = %v, %v: want exactly one of an Extractor and errors", path, e, errs)
		}
		if e != nil {
			_, _ = e.Extract(obj)
		}
		spec.Export = &Export{Mode: ExportResource, Prune: &ExportPrune{JSONPaths: []string{path}, JSONPointers: []string{path}}}
		spec.AllowFullResourceExport = true
		if e, errs := Compile(spec, Options{}); len(errs) == 0 {
			_, _ = e.Extract(obj)
		}
	})
}

// FuzzExtract evaluates fixed profiles (every language, export with pruning) on arbitrary JSON
// objects: no panic, and the object is never modified.
func FuzzExtract(f *testing.F) {
	for _, name := range []string{"testdata/deployment.json"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	secret, _ := json.Marshal(helmSecret(f, helmReleaseJSON, true))
	for _, s := range []string{podObject, string(secret), `{}`, `{"spec": null}`, `{"spec": {"template": {"spec": {"containers": "x"}}}}`,
		`{"spec": {"template": {"spec": {"containers": [null, 1, {"image": 2, "env": [{"name": "TOKEN", "value": 1}]}]}}}}`,
		`{"type": "helm.sh/release.v1", "data": {"release": "e30="}}`, `{"metadata": {"annotations": 3}}`} {
		f.Add([]byte(s))
	}
	no := false
	deployment := benchSpec()
	deployment.Attributes = append(deployment.Attributes,
		Attribute{Name: "ports", Path: `$.spec.template.spec.containers[?(@.name=="app")].ports[*].containerPort`, Type: TypeInt},
		Attribute{Name: "names", Path: "$..name", Optional: true},
		Attribute{Name: "slice", Path: "$.spec.template.spec.containers[0:2].name", Type: TypeString},
		Attribute{Name: "env", Path: "cel:object.spec.template.spec.containers.map(c, c.?env.orValue([]))", Optional: true},
		Attribute{Name: "labels", Path: "$.metadata.labels", Type: TypeMap, Optional: true},
	)
	deployment.Export = &Export{Mode: ExportResource, DedupeIdentity: &no, Prune: &ExportPrune{
		JSONPointers: []string{"/spec/template/spec/volumes", "/spec/template/spec/containers/0/env/1"},
		JSONPaths:    []string{"$..livenessProbe", `$.status.conditions[?(@.type=="Progressing")]`, "$.metadata.labels.*"},
		ScrubKeys:    []string{"owner"},
	}}
	helm := helmSpec(true, HelmFields...)
	helm.AllowFullResourceExport = true
	helm.Export = &Export{Mode: ExportResource, Include: IncludeAll}
	extractors := []*Extractor{mustCompile(f, deployment), mustCompile(f, helm)}
	f.Fuzz(func(t *testing.T, data []byte) {
		var obj map[string]any
		if err := utiljson.Unmarshal(data, &obj); err != nil || obj == nil {
			return
		}
		before := runtime.DeepCopyJSON(obj)
		for _, e := range extractors {
			_, _ = e.Extract(obj)
			_ = Prune(obj, e.Fields())
		}
		if !reflect.DeepEqual(before, obj) {
			t.Fatal("the object was modified")
		}
	})
}
