package chart_test

import (
	"flag"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/collector"
	"kollect.dev/kollect/services/control"
)

// Control (its reconciler and its webhook) and the collector must compile Profiles with the
// same options, or admission accepts what the collector refuses: the chart sets both from
// the one extraction block.
func TestTheExtractionValuesReachControlAndTheCollectorAlike(t *testing.T) {
	tests := []struct {
		name string
		sets []string
		want extract.Options
	}{
		{"the defaults pass nothing", nil, extract.Options{}},
		{"redaction names and the CEL cost limit are passed to both",
			[]string{"extraction.redactKeys={session,apiToken}", "extraction.celCostLimit=50000"},
			extract.Options{ScrubKeys: []string{"session", "apiToken"}, CELCostLimit: 50000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]extract.Options{}
			for _, d := range decode(t, render(t, "", tt.sets...)) {
				component := d.GetLabels()["app.kubernetes.io/component"]
				if d.GetKind() != "Deployment" {
					continue
				}
				var opts *extract.Options
				var bind func(*flag.FlagSet)
				switch component {
				case "control":
					c := control.DefaultConfig()
					opts, bind = &c.Extract, c.BindFlags
				case "collector":
					c := collector.DefaultConfig()
					opts, bind = &c.Extract, c.BindFlags
				default:
					continue
				}
				fs, _, _ := app.NewFlagSet(component, bind)
				fs.Init(component, flag.ContinueOnError)
				fs.SetOutput(io.Discard)
				if err := fs.Parse(containerArgs(t, d)); err != nil {
					t.Fatalf("%s rejects the chart's args: %v", component, err)
				}
				got[component] = *opts
			}
			if len(got) != 2 {
				t.Fatalf("found %d of control and the collector", len(got))
			}
			for component, opts := range got {
				if diff := cmp.Diff(tt.want, opts); diff != "" {
					t.Errorf("%s's extraction options (-want +got):\n%s", component, diff)
				}
			}
		})
	}
}
