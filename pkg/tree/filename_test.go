package tree_test

import (
	"slices"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/tree"
)

func TestFilenameShapesPerResourcePaths(t *testing.T) {
	no, yes := false, true
	deploy := busv1.Row{TargetNamespace: "a", TargetName: "t", Namespace: "a", Name: "web", UID: "u1", Group: "apps", Version: "v1", Kind: "Deployment", Attributes: map[string]any{}}
	cm := busv1.Row{TargetNamespace: "a", TargetName: "t", Namespace: "a", Name: "cfg", UID: "u2", Version: "v1", Kind: "ConfigMap", Attributes: map[string]any{}}
	tests := []struct {
		name     string
		filename *tree.Filename
		template string
		want     []string
	}{
		{"no filename keeps the historical paths", nil, "",
			[]string{"prod/a/configmap/cfg.yaml", "prod/a/deployment/web.yaml"}},
		{"an empty filename means auto: the group for apps, none for core", &tree.Filename{}, "",
			[]string{"prod/a/apps/deployment/web.yaml", "prod/a/configmap/cfg.yaml"}},
		{"auto omits the group segment of core types", &tree.Filename{GroupInPath: tree.GroupAuto, LowercaseKind: &yes}, "",
			[]string{"prod/a/apps/deployment/web.yaml", "prod/a/configmap/cfg.yaml"}},
		{"always names the core group core", &tree.Filename{GroupInPath: tree.GroupAlways}, "",
			[]string{"prod/a/apps/deployment/web.yaml", "prod/a/core/configmap/cfg.yaml"}},
		{"never leaves every group out", &tree.Filename{GroupInPath: tree.GroupNever}, "",
			[]string{"prod/a/configmap/cfg.yaml", "prod/a/deployment/web.yaml"}},
		{"lowercaseKind false keeps the kind as the API spells it", &tree.Filename{LowercaseKind: &no}, "",
			[]string{"prod/a/ConfigMap/cfg.yaml", "prod/a/apps/Deployment/web.yaml"}},
		{"a template of the sink keeps its shape, the group segment follows groupInPath",
			&tree.Filename{GroupInPath: tree.GroupAuto, LowercaseKind: &no}, "{group}/{kind}/{sourceName}{extension}",
			[]string{"ConfigMap/cfg.yaml", "apps/Deployment/web.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tree.Spec{Mode: tree.ModePerResource, Filename: tt.filename, ResourceTemplate: tt.template}
			files, err := tree.Render(s, fixture(t, []busv1.Row{deploy, cm}))
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			var got []string
			for _, f := range files {
				got = append(got, f.Path)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("paths %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFilenameRefusesAnUnknownGroupInPath(t *testing.T) {
	s := tree.Spec{Mode: tree.ModePerResource, Filename: &tree.Filename{GroupInPath: "sometimes"}}
	_, err := tree.Render(s, fixture(t, fixtureRows()))
	if err == nil || !strings.Contains(err.Error(), "spec.layout.filename.groupInPath") {
		t.Fatalf("err = %v, want one naming spec.layout.filename.groupInPath", err)
	}
}

// The sink's spec.layout.filename (the established spelling) reaches the
// tree as Filename.
func TestSpecForReadsLayoutFilename(t *testing.T) {
	no := false
	spec := v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGit, Endpoint: "https://git.example.com/x.git",
		Layout: &v1alpha1.GitLayout{Mode: tree.ModePerResource,
			Filename: &v1alpha1.GitFilename{GroupInPath: tree.GroupAlways, LowercaseKind: &no}}}
	s, err := tree.SpecFor(spec)
	if err != nil {
		t.Fatal(err)
	}
	cm := busv1.Row{TargetNamespace: "a", TargetName: "t", Namespace: "a", Name: "cfg", UID: "u2", Version: "v1", Kind: "ConfigMap", Attributes: map[string]any{}}
	files, err := tree.Render(s, fixture(t, []busv1.Row{cm}))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "prod/a/core/ConfigMap/cfg.yaml" {
		t.Fatalf("files %+v, want one at prod/a/core/ConfigMap/cfg.yaml", files)
	}
}
