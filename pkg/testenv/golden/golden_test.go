package golden_test

import (
	"os"
	"path/filepath"
	"testing"

	"kollect.dev/kollect/pkg/testenv/golden"
)

func TestAMatchingFilePasses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.golden")
	if err := os.WriteFile(path, []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, path, []byte("same\n"))
}

func TestADifferentFileFails(t *testing.T) {
	if golden.Update() {
		t.Skip("with -update every file matches")
	}
	path := filepath.Join(t.TempDir(), "a.golden")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{TB: t}
	golden.Check(rec, path, []byte("new\n"))
	if !rec.failed {
		t.Error("Check passed on a different file")
	}
}

// recorder records an Errorf instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}
