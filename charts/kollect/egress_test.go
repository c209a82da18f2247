package chart_test

import (
	"io"
	"testing"
)

func TestEgressValuesReachControlAndEveryExporter(t *testing.T) {
	tests := []struct {
		name                 string
		sets                 []string
		inCluster, linkLocal string
		deny                 string
	}{
		{"the defaults allow neither in-cluster nor link-local sinks and deny nothing more", nil, "false", "false", ""},
		{"the opt-ins and the deny list are passed on",
			[]string{"allowInClusterSinks=true", "allowLinkLocalSinks=true", "denySinkCIDRs={10.96.0.0/12,fd00:10:96::/108}"},
			"true", "true", "10.96.0.0/12,fd00:10:96::/108"},
	}
	sets := flagSets()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := 0
			for _, d := range decode(t, render(t, "", tt.sets...)) {
				component := d.GetLabels()["app.kubernetes.io/component"]
				if d.GetKind() != "Deployment" || (component != "control" && component != "snapshot-exporter" &&
					component != "database-exporter" && component != "event-exporter") {
					continue
				}
				seen++
				fs := sets[component]()
				fs.SetOutput(io.Discard)
				if err := fs.Parse(containerArgs(t, d)); err != nil {
					t.Fatalf("%s rejects the chart's args: %v", component, err)
				}
				for flag, want := range map[string]string{"allow-in-cluster-sinks": tt.inCluster,
					"allow-link-local-sinks": tt.linkLocal, "deny-sink-cidrs": tt.deny} {
					if got := fs.Lookup(flag).Value.String(); got != want {
						t.Errorf("%s --%s = %q, want %q", component, flag, got, want)
					}
				}
			}
			if seen != 4 {
				t.Fatalf("found %d of control and the three exporters", seen)
			}
		})
	}
}
