package tree_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/tree"
)

func TestSpecForDefaults(t *testing.T) {
	got, err := tree.SpecFor(v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGit})
	if err != nil {
		t.Fatalf("SpecFor: %v", err)
	}
	want := tree.Spec{Format: "yaml", Mode: "document", Content: "item",
		PathTemplate: tree.DefaultPathTemplate, ResourceTemplate: tree.DefaultResourceTemplate}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("defaults (-want +got):\n%s", d)
	}
	got, err = tree.SpecFor(v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGit, PathTemplate: "x/{namespace}-{name}.idx",
		Serialization: &v1alpha1.SnapshotSerialization{Format: "ndjson"},
		Layout:        &v1alpha1.GitLayout{Mode: "split", Content: "manifest", PathTemplate: "{kind}/{uid}{extension}"}})
	if err != nil {
		t.Fatalf("SpecFor: %v", err)
	}
	want = tree.Spec{Format: "ndjson", Mode: "split", Content: "manifest", PathTemplate: "x/{namespace}-{name}.idx",
		ResourceTemplate: "{kind}/{uid}{extension}"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("spec (-want +got):\n%s", d)
	}
}

func TestSpecForErrorsNameTheField(t *testing.T) {
	layout := func(mode, content, tmpl string) *v1alpha1.GitLayout {
		return &v1alpha1.GitLayout{Mode: mode, Content: content, PathTemplate: tmpl}
	}
	tests := []struct {
		name  string
		spec  v1alpha1.KollectSnapshotSinkSpec
		field string
	}{
		{"an object-store format", v1alpha1.KollectSnapshotSinkSpec{Serialization: &v1alpha1.SnapshotSerialization{Format: "parquet"}}, "spec.serialization.format"},
		{"an unknown mode", v1alpha1.KollectSnapshotSinkSpec{Layout: layout("tree", "", "")}, "spec.layout.mode"},
		{"an unknown content", v1alpha1.KollectSnapshotSinkSpec{Layout: layout("", "row", "")}, "spec.layout.content"},
		{"a document template without {name}", v1alpha1.KollectSnapshotSinkSpec{PathTemplate: "{namespace}.yaml"}, "spec.pathTemplate"},
		{"a document template with a row placeholder", v1alpha1.KollectSnapshotSinkSpec{PathTemplate: "{namespace}/{name}/{uid}"}, "spec.pathTemplate"},
		{"a document template climbing out", v1alpha1.KollectSnapshotSinkSpec{PathTemplate: "../{namespace}/{name}"}, "spec.pathTemplate"},
		{"an absolute document template", v1alpha1.KollectSnapshotSinkSpec{PathTemplate: "/{namespace}/{name}"}, "spec.pathTemplate"},
		{"a document template in the state folder", v1alpha1.KollectSnapshotSinkSpec{PathTemplate: ".kollect/{namespace}/{name}"}, "spec.pathTemplate"},
		{"an unknown row placeholder", v1alpha1.KollectSnapshotSinkSpec{Layout: layout("perResource", "", "{color}/{uid}")}, "spec.layout.pathTemplate"},
		{"an unbalanced brace", v1alpha1.KollectSnapshotSinkSpec{Layout: layout("perResource", "", "{kind/{uid}")}, "spec.layout.pathTemplate"},
		{"a row template into .git", v1alpha1.KollectSnapshotSinkSpec{Layout: layout("perResource", "", "a/.git/{uid}")}, "spec.layout.pathTemplate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tree.SpecFor(tt.spec)
			if !sink.IsPermanent(err) {
				t.Fatalf("SpecFor = %v, want a permanent error", err)
			}
			if !strings.Contains(err.Error(), tt.field+" ") {
				t.Fatalf("error %q does not name %s", err, tt.field)
			}
		})
	}
}
