package apptest

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/pkg/app"
)

// GoldenPath is where a service's flags golden lives, next to its test.
const GoldenPath = "testdata/flags.golden"

// CheckFlags compares app.FlagTable of the flag set service's app.Main
// parses (app.NewFlagSet with bind) with GoldenPath, rewriting the file
// when update is set.
func CheckFlags(t *testing.T, service string, bind func(*flag.FlagSet), update bool) {
	t.Helper()
	fs, _, _ := app.NewFlagSet(service, bind)
	got := app.FlagTable(fs)
	if update {
		if err := os.MkdirAll(filepath.Dir(GoldenPath), 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(GoldenPath, []byte(got), 0o600); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(GoldenPath)
	if err != nil {
		t.Fatalf("read %s (go test -update writes it): %v", GoldenPath, err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("the flags of %s changed; if on purpose, go test -update (-golden +now):\n%s", service, diff)
	}
}
