package apptest

import (
	"flag"
	"testing"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/testenv/golden"
)

// GoldenPath is where a service's flags golden lives, next to its test.
const GoldenPath = "testdata/flags.golden"

// CheckFlags compares app.FlagTable of the flag set service's app.Main
// parses (app.NewFlagSet with bind) with GoldenPath; go test -update
// rewrites the file.
func CheckFlags(t *testing.T, service string, bind func(*flag.FlagSet)) {
	t.Helper()
	fs, _, _ := app.NewFlagSet(service, bind)
	golden.Check(t, GoldenPath, []byte(app.FlagTable(fs)))
}
