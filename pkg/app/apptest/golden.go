package apptest

import (
	"testing"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/testenv/golden"
)

// GoldenPath is where a service's flags golden lives, next to its test.
const GoldenPath = "testdata/flags.golden"

// CheckFlags compares app.FlagTable of the flag set service's app.Main
// parses for c (app.NewFlagSet with c.BindFlags) with GoldenPath; go test
// -update rewrites the file. It also checks that c, parsed from an empty
// command line, passes app.Validate: app.Main refuses to start a service
// whose defaults do not.
func CheckFlags(t *testing.T, service string, c app.Config) {
	t.Helper()
	fs, _, _ := app.NewFlagSet(service, c.BindFlags)
	golden.Check(t, GoldenPath, []byte(app.FlagTable(fs)))
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if err := app.Validate(c); err != nil {
		t.Errorf("the defaults of %s do not validate: %v", service, err)
	}
}
