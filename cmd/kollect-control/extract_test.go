package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/collector"
	"kollect.dev/kollect/services/control"
)

// Control validates Profiles (reconciler and webhook) with the options the
// collector compiles them with: both binaries must offer the same
// extraction flags with the same defaults and usage.
func TestControlAndTheCollectorExposeIdenticalExtractionFlags(t *testing.T) {
	names := flag.NewFlagSet("extract", flag.ContinueOnError)
	new(extract.Options).BindFlags(names)
	lines := func(bind func(*flag.FlagSet)) string {
		fs, _, _ := app.NewFlagSet("x", bind)
		only := flag.NewFlagSet("only", flag.ContinueOnError)
		names.VisitAll(func(f *flag.Flag) {
			if g := fs.Lookup(f.Name); g != nil {
				only.Var(g.Value, g.Name, g.Usage)
			}
		})
		return app.FlagTable(only)
	}
	ctl, col := control.DefaultConfig(), collector.DefaultConfig()
	got, want := lines(ctl.BindFlags), lines(col.BindFlags)
	if n := strings.Count(want, "\n--"); n+1 != countFlags(names) {
		t.Fatalf("the collector binds %d of the %d extraction flags:\n%s", n+1, countFlags(names), want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("control's extraction flags differ from the collector's (-collector +control):\n%s", diff)
	}
}

func countFlags(fs *flag.FlagSet) int {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n
}
