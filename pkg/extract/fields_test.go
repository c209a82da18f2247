package extract

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestExtractorFields(t *testing.T) {
	tests := []struct {
		name  string
		spec  Spec
		want  [][]string
		whole bool
	}{
		{"the benchmark profile", benchSpec(),
			[][]string{{"spec", "replicas"}, {"spec", "template", "spec", "containers"}}, false},
		{"paths through lists keep only the needed element fields", attrs(
			Attribute{Name: "images", Path: "$.spec.template.spec.containers[*].image"},
			Attribute{Name: "app", Path: `$.spec.template.spec.containers[?(@.name=="app")].ports[0].containerPort`}),
			[][]string{{"spec", "template", "spec", "containers", "image"}, {"spec", "template", "spec", "containers", "name"},
				{"spec", "template", "spec", "containers", "ports", "containerPort"}}, false},
		{"a map wildcard needs the map", attrs(Attribute{Name: "l", Path: "$.metadata.labels.*"}),
			[][]string{{"metadata", "labels"}}, false},
		{"a fallback slice looks through the list", attrs(Attribute{Name: "s", Path: "$.spec.template.spec.containers[0:2].image"}),
			[][]string{{"spec", "template", "spec", "containers", "image"}}, false},
		{"a fallback filter needs everything under its static prefix", attrs(Attribute{Name: "s", Path: "$.spec.template.spec.containers[?(@.ports)].image"}),
			[][]string{{"spec", "template", "spec", "containers"}}, false},
		{"recursive descent from the root needs everything", attrs(Attribute{Name: "n", Path: "$..name"}),
			[][]string{{}}, true},
		{"Helm reads the type and the release", helmSpec(false, "chartName"),
			[][]string{{"data", "release"}, {"type"}}, false},
		{"MetadataOnly export needs apiVersion, kind and metadata",
			Spec{GVK: deploymentGVK, Export: &Export{Mode: ExportResource, Include: IncludeMetadataOnly}},
			[][]string{{"apiVersion"}, {"kind"}, {"metadata"}}, false},
		{"StatusOnly export adds status",
			Spec{GVK: deploymentGVK, Export: &Export{Mode: ExportResource, Include: IncludeStatusOnly}},
			[][]string{{"apiVersion"}, {"kind"}, {"metadata"}, {"status"}}, false},
		{"SpecOnly export needs everything (spec is every other top-level field)",
			Spec{GVK: deploymentGVK, Export: &Export{Mode: ExportResource, Include: IncludeSpecOnly}},
			[][]string{{}}, true},
		{"Attributes mode export needs nothing more",
			Spec{GVK: deploymentGVK, Attributes: []Attribute{{Name: "n", Path: "$.metadata.name"}}, Export: &Export{Include: IncludeAll}},
			[][]string{{"metadata", "name"}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := mustCompile(t, tc.spec)
			if diff := cmp.Diff(tc.want, e.Fields().Paths()); diff != "" {
				t.Errorf("Fields (-want +got):\n%s", diff)
			}
			if e.NeedsWholeObject() != tc.whole {
				t.Errorf("NeedsWholeObject = %v, want %v", e.NeedsWholeObject(), tc.whole)
			}
		})
	}
}

func TestExtractionOnAPrunedObjectIsUnchanged(t *testing.T) {
	specs := map[string]Spec{
		"benchmark": benchSpec(),
		"filters and CEL": attrs(
			Attribute{Name: "app", Path: `$.spec.template.spec.containers[?(@.name=="app")].ports[*].containerPort`},
			Attribute{Name: "ready", Path: "cel:object.status.readyReplicas == object.spec.replicas"},
			Attribute{Name: "team", Path: `cel:object.metadata.labels["team"]`},
			Attribute{Name: "envNames", Path: "cel:object.spec.template.spec.containers.map(c, c.?env.orValue([]).map(e, e.name))"},
			Attribute{Name: "missing", Path: "$.spec.nothing", Optional: true}),
		"status export": {GVK: deploymentGVK, Export: &Export{Mode: ExportResource, Include: IncludeStatusOnly}},
	}
	for name, spec := range specs {
		t.Run(name, func(t *testing.T) {
			e := mustCompile(t, spec)
			obj := loadObject(t, "deployment.json")
			before := runtime.DeepCopyJSON(obj)
			pruned := Prune(obj, e.Fields())
			if diff := cmp.Diff(before, obj); diff != "" {
				t.Fatalf("Prune modified its input (-before +after):\n%s", diff)
			}
			if cmp.Equal(pruned, obj) {
				t.Fatal("nothing was pruned")
			}
			want, err := e.Extract(obj)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Extract(pruned)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("extraction on the pruned object (-full +pruned):\n%s", diff)
			}
		})
	}
}

func TestPruneKeepsTheUnionOfSets(t *testing.T) {
	obj := decodeObject(t, `{"apiVersion": "v1", "kind": "Pod",
		"metadata": {"name": "p", "labels": {"a": "b"}, "managedFields": [{"manager": "m"}]},
		"spec": {"containers": [{"name": "c", "image": "i", "env": [{"name": "X"}]}, "odd", {"image": "j"}], "nodeName": "n"},
		"status": {"phase": "Running"}}`)
	tests := []struct {
		name string
		sets []*FieldSet
		want string
	}{
		{"one path", []*FieldSet{NewFieldSet([]string{"metadata", "name"})},
			`{"metadata": {"name": "p"}}`},
		{"a union across sets, through lists, skipping non-maps", []*FieldSet{
			NewFieldSet([]string{"metadata", "name"}, []string{"status"}),
			NewFieldSet([]string{"spec", "containers", "image"}, []string{"metadata", "labels"})},
			`{"metadata": {"name": "p", "labels": {"a": "b"}}, "status": {"phase": "Running"},
			  "spec": {"containers": [{"image": "i"}, "odd", {"image": "j"}]}}`},
		{"a longer path under a covered one changes nothing", []*FieldSet{
			NewFieldSet([]string{"spec"}, []string{"spec", "containers", "name"})},
			`{"spec": {"containers": [{"name": "c", "image": "i", "env": [{"name": "X"}]}, "odd", {"image": "j"}], "nodeName": "n"}}`},
		{"missing paths add nothing", []*FieldSet{NewFieldSet([]string{"spec", "volumes"}, []string{"nope"})},
			`{"spec": {}}`},
		{"no sets keep nothing", nil, `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.DeepCopyJSON(obj)
			got := Prune(obj, tc.sets...)
			if diff := cmp.Diff(decodeObject(t, tc.want), got); diff != "" {
				t.Errorf("Prune (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, obj); diff != "" {
				t.Errorf("Prune modified its input (-before +after):\n%s", diff)
			}
		})
	}
	t.Run("a whole-object set returns the object itself", func(t *testing.T) {
		if got := Prune(obj, NewFieldSet([]string{"spec"}), NewFieldSet([]string{})); !sameMap(got, obj) {
			t.Error("the object was copied")
		}
	})
	t.Run("an untouched subtree is shared", func(t *testing.T) {
		got := Prune(obj, NewFieldSet([]string{"metadata", "labels"}))
		if !sameMap(got["metadata"].(map[string]any)["labels"].(map[string]any), obj["metadata"].(map[string]any)["labels"].(map[string]any)) {
			t.Error("labels were copied")
		}
	})
}
