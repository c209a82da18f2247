package app

import (
	"runtime"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"kollect.dev/kollect/pkg/version"
)

// Every service's registry serves kollect_build_info = 1 labelled with the
// stamped version and commit; registering it twice in one registry (control
// started twice in a process) is no error.
func TestTheRegistryServesTheBuildInfo(t *testing.T) {
	v, c := version.Version, version.Commit
	t.Cleanup(func() { version.Version, version.Commit = v, c })
	version.Version, version.Commit = "v9.8.7", "cafe"
	reg := NewRegistry()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	for _, f := range families {
		if f.GetName() == BuildInfoMetric && len(f.GetMetric()) == 1 && f.GetMetric()[0].GetGauge().GetValue() == 1 {
			got = map[string]string{}
			for _, l := range f.GetMetric()[0].GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
		}
	}
	want := map[string]string{"version": "v9.8.7", "commit": "cafe", "goversion": runtime.Version()}
	if len(got) != 3 || got["version"] != want["version"] || got["commit"] != want["commit"] || got["goversion"] != want["goversion"] {
		t.Fatalf("%s labels %v, want one sample of 1 with %v", BuildInfoMetric, got, want)
	}
	other := prometheus.NewRegistry()
	for range 2 {
		if err := RegisterBuildInfo(other); err != nil {
			t.Fatalf("RegisterBuildInfo: %v", err)
		}
	}
}
