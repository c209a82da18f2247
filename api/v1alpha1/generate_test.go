package v1alpha1_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"kollect.dev/kollect/pkg/testenv"
)

// TestGeneratedFilesAreCurrent regenerates the deepcopy code and the CRDs
// into a temporary folder, with the commands `make generate` runs, and fails
// when the committed files differ.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	objDir, crdDir := filepath.Join(tmp, "object"), filepath.Join(tmp, "crds")
	for _, args := range [][]string{
		{"tool", "controller-gen", "object", "paths=./api/...", "output:object:dir=" + objDir},
		{"tool", "controller-gen", "crd", "paths=./api/v1alpha1/...", "output:crd:dir=" + crdDir},
	} {
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
	compare(t, filepath.Join(objDir, "zz_generated.deepcopy.go"), filepath.Join(root, "api", "v1alpha1", "zz_generated.deepcopy.go"))

	generated := listYAML(t, crdDir)
	committed := listYAML(t, filepath.Join(root, "api", "crds"))
	if !slices.Equal(generated, committed) {
		t.Errorf("api/crds holds %v, controller-gen writes %v; run make generate", committed, generated)
	}
	for _, name := range generated {
		compare(t, filepath.Join(crdDir, name), filepath.Join(root, "api", "crds", name))
	}
}

func compare(t *testing.T, generated, committed string) {
	t.Helper()
	want, err := os.ReadFile(generated)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(committed)
	if err != nil {
		t.Errorf("%v; run make generate", err)
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale; run make generate", committed)
	}
}

func listYAML(t *testing.T, dir string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range matches {
		names = append(names, filepath.Base(m))
	}
	slices.Sort(names)
	return names
}
