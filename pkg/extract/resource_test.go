package extract

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
)

func exportSpec(x Export) Spec {
	x.Mode = ExportResource
	return Spec{GVK: deploymentGVK, Export: &x}
}

func embedded(t *testing.T, spec Spec, obj map[string]any) map[string]any {
	t.Helper()
	before := runtime.DeepCopyJSON(obj)
	got, err := mustCompile(t, spec).Extract(obj)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, obj); diff != "" {
		t.Fatalf("Extract modified its input (-before +after):\n%s", diff)
	}
	as := DefaultExportAs
	if spec.Export.As != "" {
		as = spec.Export.As
	}
	r, ok := got[as].(map[string]any)
	if !ok {
		t.Fatalf("no embedded resource under %q in %v", as, got)
	}
	return r
}

func keys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

func TestIncludeModes(t *testing.T) {
	cm := decodeObject(t, `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "labels": {"a": "b"}}, "data": {"k": "v"}, "immutable": true}`)
	tests := []struct {
		name    string
		include Include
		obj     string
		want    []string
	}{
		{"MetadataOnly keeps apiVersion, kind and metadata", IncludeMetadataOnly, "deployment", []string{"apiVersion", "kind", "metadata"}},
		{"SpecOnly keeps spec and no metadata beyond the deduplicated identity", IncludeSpecOnly, "deployment", []string{"apiVersion", "kind", "spec"}},
		{"StatusOnly keeps status and no metadata", IncludeStatusOnly, "deployment", []string{"apiVersion", "kind", "status"}},
		{"SpecAndStatus keeps both and no metadata", IncludeSpecAndStatus, "deployment", []string{"apiVersion", "kind", "spec", "status"}},
		{"the default is SpecAndStatus", "", "deployment", []string{"apiVersion", "kind", "spec", "status"}},
		{"All keeps every top-level field, metadata included", IncludeAll, "deployment", []string{"apiVersion", "kind", "metadata", "spec", "status"}},
		{"ConfigMap data counts as spec", IncludeSpecOnly, "configmap", []string{"apiVersion", "data", "immutable", "kind"}},
		{"StatusOnly drops ConfigMap data", IncludeStatusOnly, "configmap", []string{"apiVersion", "kind"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := loadObject(t, "deployment.json")
			if tc.obj == "configmap" {
				obj = cm
			}
			r := embedded(t, exportSpec(Export{Include: tc.include}), obj)
			if diff := cmp.Diff(tc.want, keys(r)); diff != "" {
				t.Errorf("top-level keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMetadataPruning(t *testing.T) {
	no := false
	tests := []struct {
		name            string
		export          Export
		wantMeta        []string
		wantAnnotations []string
	}{
		{"defaults drop identity, bookkeeping and last-applied, keep creationTimestamp",
			Export{Include: IncludeAll},
			[]string{"annotations", "creationTimestamp", "labels"},
			[]string{"deployment.kubernetes.io/revision", "example.com/owner"}},
		{"dedupeIdentity false keeps name, namespace and uid",
			Export{Include: IncludeAll, DedupeIdentity: &no},
			[]string{"annotations", "creationTimestamp", "labels", "name", "namespace", "uid"},
			[]string{"deployment.kubernetes.io/revision", "example.com/owner"}},
		{"prune defaults false keeps managedFields, resourceVersion, generation and last-applied",
			Export{Include: IncludeMetadataOnly, Prune: &ExportPrune{Defaults: &no}},
			[]string{"annotations", "creationTimestamp", "generation", "labels", "managedFields", "resourceVersion"},
			[]string{"deployment.kubernetes.io/revision", "example.com/owner", "kubectl.kubernetes.io/last-applied-configuration"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			meta := embedded(t, exportSpec(tc.export), loadObject(t, "deployment.json"))["metadata"].(map[string]any)
			if diff := cmp.Diff(tc.wantMeta, keys(meta)); diff != "" {
				t.Errorf("metadata keys (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAnnotations, keys(meta["annotations"].(map[string]any))); diff != "" {
				t.Errorf("annotation keys (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("an annotations map left empty is dropped", func(t *testing.T) {
		obj := decodeObject(t, `{"kind": "X", "metadata": {"name": "n", "labels": {"a": "b"},
			"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}}}`)
		meta := embedded(t, exportSpec(Export{Include: IncludeAll}), obj)["metadata"]
		if diff := cmp.Diff(map[string]any{"labels": map[string]any{"a": "b"}}, meta); diff != "" {
			t.Errorf("metadata (-want +got):\n%s", diff)
		}
	})
}

func TestPrunePointersAndPaths(t *testing.T) {
	tests := []struct {
		name  string
		prune ExportPrune
		get   string // a CEL-free JSONPath into the embedded copy
		want  any
	}{
		{"a pointer removes a field", ExportPrune{JSONPointers: []string{"/spec/template/spec/volumes"}},
			"$.spec.template.spec.volumes", nil},
		{"a pointer with ~1 names a key holding a slash", ExportPrune{JSONPointers: []string{"/metadata/annotations/example.com~1owner"}},
			"$.metadata.annotations.*", []any{"7"}},
		{"a pointer removes a list element", ExportPrune{JSONPointers: []string{"/spec/template/spec/containers/1"}},
			"$.spec.template.spec.containers[*].name", []any{"app", "log-shipper"}},
		{"a pointer to nothing changes nothing", ExportPrune{JSONPointers: []string{"/spec/nothing/here", "/spec/template/spec/containers/9"}},
			"$.spec.template.spec.containers[*].name", []any{"app", "envoy", "log-shipper"}},
		{"a wildcard path removes a field in every element", ExportPrune{JSONPaths: []string{"$.spec.template.spec.containers[*].resources"}},
			"$.spec.template.spec.containers[*].resources", []any{}},
		{"a recursive path removes a key at any depth", ExportPrune{JSONPaths: []string{"$..readinessProbe"}},
			"$..readinessProbe", []any{}},
		{"a filter path removes matching elements", ExportPrune{JSONPaths: []string{`{.status.conditions[?(@.type=="Progressing")]}`}},
			"$.status.conditions[*].type", []any{"Available"}},
		{"a map wildcard path empties a map", ExportPrune{JSONPaths: []string{"$.metadata.labels.*"}},
			"$.metadata.labels", map[string]any{}},
		{"an index path removes one element", ExportPrune{JSONPaths: []string{"$.spec.template.spec.containers[-1]"}},
			"$.spec.template.spec.containers[*].name", []any{"app", "envoy"}},
		{"a path below a wildcard removes inside each element", ExportPrune{JSONPaths: []string{"$.spec.template.spec.containers[*].ports[0]"}},
			"$.spec.template.spec.containers[*].ports[*].name", []any{"metrics"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prune := tc.prune
			r := embedded(t, exportSpec(Export{Include: IncludeAll, Prune: &prune}), loadObject(t, "deployment.json"))
			jp, err := parseJSONPath(tc.get)
			if err != nil {
				t.Fatal(err)
			}
			var got any
			if jp.multi {
				l, _ := jp.all(r)
				if l == nil {
					l = []any{}
				}
				got = l
			} else {
				got, _ = jp.single(r)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.get, diff)
			}
		})
	}
}

func TestEmbeddedResourceIsRedacted(t *testing.T) {
	spec := exportSpec(Export{As: "manifest", Include: IncludeAll, Prune: &ExportPrune{ScrubKeys: []string{"Owner"}}})
	r := embedded(t, spec, loadObject(t, "deployment.json"))
	containers := r["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
	app := containers[0].(map[string]any)
	want := []any{
		map[string]any{"name": "LOG_LEVEL", "value": "info"},
		map[string]any{"name": "DB_HOST", "value": "postgres.shop.svc"},
		map[string]any{"name": "DB_PASSWORD", "value": sensitive()},
		map[string]any{"name": "STRIPE_API_KEY", "valueFrom": sensitive()},
		map[string]any{"name": "POD_NAME", "valueFrom": sensitive()},
	}
	if diff := cmp.Diff(want, app["env"]); diff != "" {
		t.Errorf("app env (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{map[string]any{"secretRef": sensitive()}}, app["envFrom"]); diff != "" {
		t.Errorf("app envFrom (-want +got):\n%s", diff)
	}
	shipper := containers[2].(map[string]any)["env"].([]any)[1]
	if diff := cmp.Diff(map[string]any{"name": "OUTPUT_TOKEN", "value": sensitive()}, shipper); diff != "" {
		t.Errorf("shipper env (-want +got):\n%s", diff)
	}
	owner := r["metadata"].(map[string]any)["annotations"].(map[string]any)["example.com/owner"]
	if diff := cmp.Diff(sensitive(), owner); diff != "" {
		t.Errorf("profile scrub key (-want +got):\n%s", diff)
	}
}

func secretObject(t *testing.T) map[string]any {
	return decodeObject(t, `{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db", "namespace": "shop"},
		"type": "Opaque", "data": {"host": "ZGI=", "password": "aHVudGVyMg=="}, "stringData": {"user": "app"}}`)
}

func TestSecretExport(t *testing.T) {
	withheld := Redacted(ReasonSecretData)
	tests := []struct {
		name       string
		allow      bool
		include    Include
		wantErr    string
		data       any
		stringData any
	}{
		{"without the annotation export is refused", false, IncludeAll, "spec.export.mode", nil, nil},
		{"with the annotation only, data is withheld", true, IncludeSpecAndStatus, "", withheld, withheld},
		{"with the annotation and include All, data is exported, keys still redacted", true, IncludeAll, "",
			map[string]any{"host": "ZGI=", "password": sensitive()}, map[string]any{"user": "app"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := Spec{GVK: secretGVK, AllowFullResourceExport: tc.allow, Export: &Export{Mode: ExportResource, Include: tc.include}}
			if tc.wantErr != "" {
				_, errs := Compile(spec, Options{})
				if len(errs) != 1 || errs[0].Field != tc.wantErr || !strings.Contains(errs[0].Detail, annotationAllowFullResourceExport) {
					t.Fatalf("errors = %v, want one on %s naming the annotation", errs, tc.wantErr)
				}
				return
			}
			r := embedded(t, spec, secretObject(t))
			if diff := cmp.Diff(tc.data, r["data"]); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stringData, r["stringData"]); diff != "" {
				t.Errorf("stringData (-want +got):\n%s", diff)
			}
			if r["type"] != "Opaque" {
				t.Errorf("type = %v, want Opaque", r["type"])
			}
		})
	}
}

func TestEmbeddedResourceNamedLikeASecretIsRedacted(t *testing.T) {
	got, err := mustCompile(t, exportSpec(Export{As: "rawSecret"})).Extract(loadObject(t, "deployment.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"rawSecret": sensitive()}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAttributesModeEmbedsNothing(t *testing.T) {
	spec := attrs(Attribute{Name: "n", Path: "$.metadata.name"})
	spec.Export = &Export{Mode: ExportAttributes, Include: IncludeAll}
	got, err := mustCompile(t, spec).Extract(loadObject(t, "deployment.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"n": "checkout"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
