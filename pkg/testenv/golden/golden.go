package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files and the generated files the tests compare")

// Update reports whether the test binary runs with -update.
func Update() bool { return *update }

// Check compares got with the file at path and fails the test (without
// stopping it) with the difference. With -update it first writes got to
// path, making its folder. It returns what the file holds, for a test
// that reads the golden file on (a round trip, a parse).
func Check(t testing.TB, path string, got []byte) []byte {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s (go test -update writes it): %v", path, err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs; if on purpose, go test -update (-golden +got):\n%s", path, d)
	}
	return want
}
