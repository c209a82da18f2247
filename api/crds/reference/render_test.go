package reference_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kollect.dev/kollect/api/crds"
	"kollect.dev/kollect/api/crds/reference"
	"kollect.dev/kollect/pkg/testenv/golden"
)

const dir = "../../../docs/reference"

// TestReferenceIsCurrent fails when docs/reference differs from what the
// CRDs render; `make generate` (or -update) rewrites it.
func TestReferenceIsCurrent(t *testing.T) {
	pages, err := reference.Render(crds.FS)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, p := range pages {
		want[p.File] = true
		golden.Check(t, filepath.Join(dir, p.File), p.Body) // make generate rewrites them
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
