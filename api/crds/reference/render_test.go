package reference_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kollect.dev/kollect/api/crds"
	"kollect.dev/kollect/api/crds/reference"
)

var update = flag.Bool("update", false, "rewrite docs/reference")

const dir = "../../../docs/reference"

// TestReferenceIsCurrent fails when docs/reference differs from what the
// CRDs render; `make generate` (or -update) rewrites it.
func TestReferenceIsCurrent(t *testing.T) {
	pages, err := reference.Render(crds.FS)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			if err := os.WriteFile(filepath.Join(dir, p.File), p.Body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := map[string]bool{}
	for _, p := range pages {
		want[p.File] = true
		got, err := os.ReadFile(filepath.Join(dir, p.File))
		if err != nil {
			t.Fatalf("%s: %v (run make generate)", p.File, err)
		}
		if !bytes.Equal(got, p.Body) {
			t.Errorf("docs/reference/%s is stale: run make generate", p.File)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("docs/reference/%s documents no kind: delete it", e.Name())
		}
	}
	if len(pages) != 13 {
		t.Fatalf("rendered %d pages, want the index and 12 kinds", len(pages))
	}
}

func TestAPageDocumentsEveryFieldWithItsValidation(t *testing.T) {
	pages, err := reference.Render(crds.FS)
	if err != nil {
		t.Fatal(err)
	}
	var snap string
	for _, p := range pages {
		if p.Kind == "KollectSnapshotSink" {
			snap = string(p.Body)
		}
	}
	for _, want := range []string{
		"- Short names: `ksnap`",
		"| `spec.type` | string |  |  | one of git, gitlab, ", // the type enum, whatever backends follow
		"| `spec.gitlab.project` | string | yes |",
		"| `spec.git.pushPolicy` | string |",
		"one of Commit, ForcePush",
		"| `spec.objectStore.hotAttributes` | string[] |",
		"each item: max length",
		"| `status.conditions[].type` |",
	} {
		if !strings.Contains(snap, want) {
			t.Errorf("the KollectSnapshotSink page lacks %q", want)
		}
	}
}
