package tree_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/pkg/testenv/golden"
	"kollect.dev/kollect/pkg/tree"
)

// dump is the golden text of files: each path on a "---" line, then its
// bytes.
func dump(files []tree.File) string {
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "--- %s\n%s", f.Path, f.Data)
	}
	return b.String()
}

func TestRenderGolden(t *testing.T) {
	envelopes := map[string][]string{"": nil, "empty-": nil}
	for prefix := range envelopes {
		for _, mode := range []string{tree.ModeDocument, tree.ModePerResource, tree.ModeSplit} {
			for _, content := range []string{tree.ContentItem, tree.ContentAttributes, tree.ContentManifest} {
				for _, format := range []string{tree.FormatYAML, tree.FormatJSON, tree.FormatNDJSON} {
					name := prefix + mode + "-" + content + "-" + format
					t.Run(name, func(t *testing.T) {
						rows := fixtureRows()
						if prefix != "" {
							rows = nil
						}
						files, err := tree.Render(tree.Spec{Format: format, Mode: mode, Content: content}, fixture(t, rows))
						if err != nil {
							t.Fatalf("render: %v", err)
						}
						golden.Check(t, filepath.Join("testdata", name+".golden"), []byte(dump(files)))
					})
				}
			}
		}
	}
}

func TestRenderDoesNotDependOnRowOrder(t *testing.T) {
	for _, mode := range []string{tree.ModeDocument, tree.ModePerResource, tree.ModeSplit} {
		t.Run("mode "+mode, func(t *testing.T) {
			s := tree.Spec{Mode: mode}
			want, err := tree.Render(s, fixture(t, fixtureRows()))
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			env := fixture(t, fixtureRows())
			slices.Reverse(env.Items)
			got, err := tree.Render(s, env)
			if err != nil {
				t.Fatalf("render reversed: %v", err)
			}
			if d := cmp.Diff(dump(want), dump(got)); d != "" {
				t.Fatalf("reversed rows render differently (-want +got):\n%s", d)
			}
		})
	}
}

func TestRenderPaths(t *testing.T) {
	tests := []struct {
		name string
		spec tree.Spec
		want []string
	}{
		{"the default document is one file under inventory/",
			tree.Spec{}, []string{"inventory/team-a/web.yaml"}},
		{"a document template with every placeholder",
			tree.Spec{Format: "json", PathTemplate: "{cluster}/g{generation}/{namespace}/{name}{extension}"},
			[]string{"prod/g3/team-a/web.json"}},
		{"colliding rows get their uid, rows sharing a uid a hash of their identity",
			tree.Spec{Mode: tree.ModePerResource}, []string{
				"prod/_cluster/namespace/team-a.yaml",
				"prod/team-a/deployment/web.yaml",
				"prod/team-a/pod/web-1--u-pod--2f086f9c.yaml",
				"prod/team-a/pod/web-1--u-pod--64bcfb08.yaml",
				"prod/team-a/service/web--u-ksvc.yaml",
				"prod/team-a/service/web--u-svc.yaml",
			}},
		{"a template with the target, group and uid needs no disambiguation",
			tree.Spec{Mode: tree.ModePerResource, Format: "ndjson",
				ResourceTemplate: "{targetNamespace}/{targetName}/{group}/{version}/{kind}/{uid}{extension}"}, []string{
				"team-a/all-pods/core/v1/pod/u-pod.ndjson",
				"team-a/deployments/apps/v1/deployment/u-deploy.ndjson",
				"team-a/knative/serving.knative.dev/v1/service/u-ksvc.ndjson",
				"team-a/namespaces/core/v1/namespace/u-ns.ndjson",
				"team-a/pods/core/v1/pod/u-pod.ndjson",
				"team-a/services/core/v1/service/u-svc.ndjson",
			}},
		{"a row path equal to the split index is disambiguated, the index keeps its path",
			tree.Spec{Mode: tree.ModeSplit, PathTemplate: "{namespace}/{name}{extension}",
				ResourceTemplate: "{sourceNamespace}/{sourceName}{extension}"}, []string{
				"_cluster/team-a.yaml",
				"team-a/web--u-deploy.yaml",
				"team-a/web--u-ksvc.yaml",
				"team-a/web--u-svc.yaml",
				"team-a/web-1--u-pod--2f086f9c.yaml",
				"team-a/web-1--u-pod--64bcfb08.yaml",
				"team-a/web.yaml",
			}},
		{"empty segments of a template are dropped",
			tree.Spec{Mode: tree.ModePerResource, ResourceTemplate: "rows//{uid}{extension}"}, []string{
				"rows/u-deploy.yaml", "rows/u-ksvc.yaml", "rows/u-ns.yaml",
				"rows/u-pod--u-pod--2f086f9c.yaml", "rows/u-pod--u-pod--64bcfb08.yaml", "rows/u-svc.yaml",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := tree.Render(tt.spec, fixture(t, fixtureRows()))
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			var got []string
			for _, f := range files {
				got = append(got, f.Path)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Fatalf("paths (-want +got):\n%s", d)
			}
		})
	}
}

func TestDocumentPath(t *testing.T) {
	env := fixture(t, nil)
	env.Inventory.Namespace = ""
	got, err := tree.Spec{Format: "json"}.DocumentPath(env)
	if err != nil || got != "inventory/_cluster/web.json" {
		t.Fatalf("DocumentPath = %q, %v; want inventory/_cluster/web.json", got, err)
	}
	if _, err := (tree.Spec{Mode: "tree"}).DocumentPath(env); err == nil {
		t.Fatal("an invalid spec rendered a document path")
	}
}
