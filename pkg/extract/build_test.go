package extract

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fieldErr is the part of a field.Error the tests pin: what is wrong, and where.
type fieldErr struct {
	Type  field.ErrorType
	Field string
}

func summarise(errs field.ErrorList) []fieldErr {
	var out []fieldErr
	for _, e := range errs {
		out = append(out, fieldErr{e.Type, e.Field})
	}
	return out
}

func TestCompileErrorsNameTheField(t *testing.T) {
	ok := Attribute{Name: "ok", Path: "$.metadata.name"}
	tests := []struct {
		name string
		spec Spec
		want []fieldErr
	}{
		{"a missing version and kind", Spec{GVK: schema.GroupVersionKind{Group: "apps"}},
			[]fieldErr{{field.ErrorTypeRequired, "spec.targetGVK.version"}, {field.ErrorTypeRequired, "spec.targetGVK.kind"}}},
		{"an attribute without a name", attrs(ok, Attribute{Path: "$.a"}),
			[]fieldErr{{field.ErrorTypeRequired, "spec.attributes[1].name"}}},
		{"a duplicate name", attrs(ok, ok),
			[]fieldErr{{field.ErrorTypeDuplicate, "spec.attributes[1].name"}}},
		{"an unknown type", attrs(ok, Attribute{Name: "t", Path: "$.a", Type: "number"}),
			[]fieldErr{{field.ErrorTypeNotSupported, "spec.attributes[1].type"}}},
		{"an empty path", attrs(ok, ok, Attribute{Name: "p"}),
			[]fieldErr{{field.ErrorTypeDuplicate, "spec.attributes[1].name"}, {field.ErrorTypeRequired, "spec.attributes[2].path"}}},
		{"a path in no language", attrs(Attribute{Name: "p", Path: "spec.replicas"}),
			[]fieldErr{{field.ErrorTypeInvalid, "spec.attributes[0].path"}}},
		{"a JSONPath syntax error", attrs(ok, ok, Attribute{Name: "p", Path: "$.spec.containers[0"}),
			[]fieldErr{{field.ErrorTypeDuplicate, "spec.attributes[1].name"}, {field.ErrorTypeInvalid, "spec.attributes[2].path"}}},
		{"a CEL error", attrs(ok, Attribute{Name: "c", Path: "cel:object.spec.("}),
			[]fieldErr{{field.ErrorTypeInvalid, "spec.attributes[1].path"}}},
		{"a CEL result that cannot be the type", attrs(Attribute{Name: "c", Path: "cel:'x'", Type: TypeBool}),
			[]fieldErr{{field.ErrorTypeInvalid, "spec.attributes[0].path"}}},
		{"an unknown export mode and include", Spec{GVK: deploymentGVK, Export: &Export{Mode: "Everything", Include: "Most"}},
			[]fieldErr{{field.ErrorTypeNotSupported, "spec.export.mode"}, {field.ErrorTypeNotSupported, "spec.export.include"}}},
		{"as colliding with an attribute", Spec{GVK: deploymentGVK, Attributes: []Attribute{{Name: "resource", Path: "$.a"}}, Export: &Export{Mode: ExportResource}},
			[]fieldErr{{field.ErrorTypeInvalid, "spec.export.as"}}},
		{"invalid pointers, paths and scrub keys", Spec{GVK: deploymentGVK, Export: &Export{Mode: ExportResource, Prune: &ExportPrune{
			JSONPointers: []string{"/ok", "no-slash", "/bad~2escape", ""},
			JSONPaths:    []string{"$.ok", "$.spec.containers[0:2]", "$", "$.a["},
			ScrubKeys:    []string{"ok", ""},
		}}},
			[]fieldErr{
				{field.ErrorTypeInvalid, "spec.export.prune.jsonPointers[1]"},
				{field.ErrorTypeInvalid, "spec.export.prune.jsonPointers[2]"},
				{field.ErrorTypeInvalid, "spec.export.prune.jsonPointers[3]"},
				{field.ErrorTypeInvalid, "spec.export.prune.jsonPaths[1]"},
				{field.ErrorTypeInvalid, "spec.export.prune.jsonPaths[2]"},
				{field.ErrorTypeInvalid, "spec.export.prune.jsonPaths[3]"},
				{field.ErrorTypeRequired, "spec.export.prune.scrubKeys[1]"},
			}},
		{"Secret data without the annotation, Resource export without the other", Spec{GVK: secretGVK,
			Attributes: []Attribute{ok, {Name: "d", Path: "$.data.x"}}, Export: &Export{Mode: ExportResource}},
			[]fieldErr{{field.ErrorTypeForbidden, "spec.attributes[1].path"}, {field.ErrorTypeForbidden, "spec.export.mode"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, errs := Compile(tc.spec, Options{})
			if diff := cmp.Diff(tc.want, summarise(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s\n%v", diff, errs)
			}
			if e != nil {
				t.Error("an Extractor came back with errors")
			}
		})
	}
}

func TestCompileErrorMessagesAreActionable(t *testing.T) {
	_, errs := Compile(attrs(Attribute{Name: "c", Path: "cel:object.spec.replicas +"}), Options{})
	if len(errs) != 1 {
		t.Fatalf("errors = %v", errs)
	}
	want := `spec.attributes[0].path: Invalid value: "cel:object.spec.replicas +": invalid CEL: 1:27: Syntax error: mismatched input '<EOF>' expecting`
	if got := errs[0].Error(); len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("message = %q, want it to start with %q", got, want)
	}
}

func TestOperatorScrubKeysApplyToEveryProfile(t *testing.T) {
	e, errs := Compile(attrs(Attribute{Name: "annotations", Path: "$.metadata.annotations"}), Options{ScrubKeys: []string{"OWNER"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got, err := e.Extract(loadObject(t, "deployment.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sensitive(), got["annotations"].(map[string]any)["example.com/owner"]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
