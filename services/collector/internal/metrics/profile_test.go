package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"kollect.dev/kollect/api/v1alpha1"
)

func TestProfileGauges(t *testing.T) {
	replicasByImage := []v1alpha1.ProfileMetric{{Name: "replicas", Path: "replicas", Labels: []string{"image"}}}
	cases := []struct {
		name    string
		observe func(g *ProfileGauges)
		want    string
	}{
		{
			name: "objects with the same labels add up",
			observe: func(g *ProfileGauges) {
				g.Define("team-a/web", replicasByImage)
				g.Observe("team-a/web", "u1", map[string]any{"image": "nginx:1", "replicas": int64(2)})
				g.Observe("team-a/web", "u2", map[string]any{"image": "nginx:1", "replicas": int64(3)})
				g.Observe("team-a/web", "u3", map[string]any{"image": "nginx:2", "replicas": 1.5})
			},
			want: `kollect_profile_replicas{image="nginx:1",target="team-a/web"} 5
kollect_profile_replicas{image="nginx:2",target="team-a/web"} 1.5
`,
		},
		{
			name: "a forgotten object no longer counts and a changed one counts once",
			observe: func(g *ProfileGauges) {
				g.Define("team-a/web", replicasByImage)
				g.Observe("team-a/web", "u1", map[string]any{"image": "nginx:1", "replicas": int64(2)})
				g.Observe("team-a/web", "u2", map[string]any{"image": "nginx:1", "replicas": int64(3)})
				g.Observe("team-a/web", "u2", map[string]any{"image": "nginx:1", "replicas": int64(4)})
				g.Forget("team-a/web", "u1")
			},
			want: `kollect_profile_replicas{image="nginx:1",target="team-a/web"} 4
`,
		},
		{
			name: "booleans count as 0 or 1 and other values are left out",
			observe: func(g *ProfileGauges) {
				g.Define("nodes", []v1alpha1.ProfileMetric{{Name: "ready", Path: "ready"}})
				g.Observe("nodes", "u1", map[string]any{"ready": true})
				g.Observe("nodes", "u2", map[string]any{"ready": "yes"})
				g.Observe("nodes", "u3", map[string]any{"ready": nil})
			},
			want: `kollect_profile_ready{target="nodes"} 1
`,
		},
		{
			name: "an attribute named target becomes attribute_target",
			observe: func(g *ProfileGauges) {
				g.Define("ns/t", []v1alpha1.ProfileMetric{{Name: "size", Path: "size", Labels: []string{"target"}}})
				g.Observe("ns/t", "u1", map[string]any{"size": int64(7), "target": "prod"})
			},
			want: `kollect_profile_size{attribute_target="prod",target="ns/t"} 7
`,
		},
		{
			name: "a Target whose labels conflict with an earlier Target is left out",
			observe: func(g *ProfileGauges) {
				g.Define("a/first", replicasByImage)
				g.Define("b/second", []v1alpha1.ProfileMetric{{Name: "replicas", Path: "replicas"}})
				g.Observe("a/first", "u1", map[string]any{"image": "x", "replicas": int64(1)})
				g.Observe("b/second", "u2", map[string]any{"replicas": int64(9)})
			},
			want: `kollect_profile_replicas{image="x",target="a/first"} 1
`,
		},
		{
			name: "a Target without metrics and a reset leave nothing",
			observe: func(g *ProfileGauges) {
				g.Define("a/gone", replicasByImage)
				g.Observe("a/gone", "u1", map[string]any{"image": "x", "replicas": int64(1)})
				g.Define("a/gone", nil)
				g.Define("a/reset", replicasByImage)
				g.Observe("a/reset", "u1", map[string]any{"image": "x", "replicas": int64(1)})
				g.Reset()
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := NewProfileGauges()
			c.observe(g)
			want := ""
			if c.want != "" {
				name := c.want[:strings.IndexByte(c.want, '{')]
				want = "# HELP " + name + " " + help(g, name) + "\n# TYPE " + name + " gauge\n" + c.want
			}
			if err := testutil.CollectAndCompare(g, strings.NewReader(want)); err != nil {
				t.Error(err)
			}
		})
	}
}

// help returns the help text the gauges give a family.
func help(g *ProfileGauges, name string) string {
	for _, t := range g.targets {
		for _, d := range t.defs {
			if d.name == name {
				return "KollectProfile metric " + strings.TrimPrefix(name, ProfilePrefix) + ": attribute " + d.path +
					", summed over a Target's objects with the same labels."
			}
		}
	}
	return ""
}
