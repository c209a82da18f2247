package metrics

import (
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
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

// TestProfileGaugesNeverPanic replays the review's H4 probe and the other
// ways a Profile could break a scrape: collection leaves the bad series out,
// reports them, and the registry gathers without an error.
func TestProfileGaugesNeverPanic(t *testing.T) {
	cases := []struct {
		name    string
		defs    []v1alpha1.ProfileMetric
		attrs   []map[string]any
		series  int // kollect_profile_size series exposed
		dropped string
	}{
		{"labels target and attribute_target collide",
			[]v1alpha1.ProfileMetric{{Name: "size", Path: "size", Labels: []string{"target", "attribute_target"}}},
			[]map[string]any{{"size": int64(1), "target": "a", "attribute_target": "b"}}, 0, "1"},
		{"a label value that is not UTF-8",
			[]v1alpha1.ProfileMetric{{Name: "size", Path: "size", Labels: []string{"l"}}},
			[]map[string]any{{"size": int64(1), "l": "ok"}, {"size": int64(1), "l": "\xff"}}, 1, "1"},
		{"a metric name repeated in one Profile",
			[]v1alpha1.ProfileMetric{{Name: "size", Path: "size"}, {Name: "size", Path: "other"}},
			[]map[string]any{{"size": int64(1), "other": int64(2)}}, 1, ""},
		{"more series than the cap",
			[]v1alpha1.ProfileMetric{{Name: "size", Path: "size", Labels: []string{"l"}}},
			[]map[string]any{{"size": int64(1), "l": "a"}, {"size": int64(1), "l": "b"}, {"size": int64(1), "l": "c"}, {"size": int64(1), "l": "d"}}, 2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := New()
			m.Profiles.MaxSeries = 2
			m.Profiles.Define("ns/t", c.defs)
			for i, a := range c.attrs {
				m.Profiles.Observe("ns/t", string(rune('a'+i)), a)
			}
			families, err := m.Registry.Gather()
			if err != nil {
				t.Fatalf("gather: %v", err)
			}
			series, dropped := 0, ""
			for _, f := range families {
				switch f.GetName() {
				case ProfilePrefix + "size":
					series = len(f.GetMetric())
				case NameProfileSeriesDropped:
					dropped = strconv.FormatFloat(f.GetMetric()[0].GetGauge().GetValue(), 'g', -1, 64)
				}
			}
			if series != c.series || dropped != c.dropped {
				t.Errorf("%d series, dropped %q; want %d, %q", series, dropped, c.series, c.dropped)
			}
		})
	}
}

func TestAFamilyKeepsTheHelpOfItsFirstTarget(t *testing.T) {
	m := New()
	m.Profiles.Define("a/one", []v1alpha1.ProfileMetric{{Name: "size", Path: "size"}})
	m.Profiles.Define("b/two", []v1alpha1.ProfileMetric{{Name: "size", Path: "bytes"}})
	m.Profiles.Observe("a/one", "u1", map[string]any{"size": int64(1)})
	m.Profiles.Observe("b/two", "u2", map[string]any{"bytes": int64(2)})
	if _, err := m.Registry.Gather(); err != nil {
		t.Fatalf("two Profiles with one metric name and different paths break the scrape: %v", err)
	}
}

func TestLabelTargetIsTheEnginesBuiltInLabel(t *testing.T) {
	if LabelTarget != extract.MetricTargetLabel {
		t.Error("the engine checks label collisions against another target label")
	}
}

func TestSeriesOverTheCapAddUpInTheOtherSeries(t *testing.T) {
	byImageAndTeam := []v1alpha1.ProfileMetric{{Name: "replicas", Path: "replicas", Labels: []string{"image", "team"}}}
	cases := []struct {
		name   string
		images []string
		want   string
	}{
		{"at the cap every series is its own", []string{"a", "b", "c"}, `
kollect_profile_replicas{image="a",target="ns/t",team="x"} 1
kollect_profile_replicas{image="b",target="ns/t",team="x"} 2
kollect_profile_replicas{image="c",target="ns/t",team="x"} 3
`},
		{"over the cap the last in label order add up under _other", []string{"a", "b", "c", "d", "e"}, `
kollect_profile_replicas{image="_other",target="ns/t",team="_other"} 12
kollect_profile_replicas{image="a",target="ns/t",team="x"} 1
kollect_profile_replicas{image="b",target="ns/t",team="x"} 2
# HELP kollect_collector_profile_series_overflow Series of a KollectProfile metric over the series cap, summed into its series whose attribute labels are "_other", in the last collection.
# TYPE kollect_collector_profile_series_overflow gauge
kollect_collector_profile_series_overflow{metric="replicas",target="ns/t"} 3
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := NewProfileGauges()
			g.MaxSeries = 3
			g.Define("ns/t", byImageAndTeam)
			for i, image := range c.images {
				g.Observe("ns/t", image, map[string]any{"image": image, "team": "x", "replicas": int64(i + 1)})
			}
			name := ProfilePrefix + "replicas"
			want := "# HELP " + name + " " + help(g, name) + "\n# TYPE " + name + " gauge" + c.want
			if err := testutil.CollectAndCompare(g, strings.NewReader(want)); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestARealSeriesLabelledOtherMergesWithTheOverflow(t *testing.T) {
	g := NewProfileGauges()
	g.MaxSeries = 2
	g.Define("ns/t", []v1alpha1.ProfileMetric{{Name: "replicas", Path: "replicas", Labels: []string{"image"}}})
	for i, image := range []string{"_other", "b", "c"} {
		g.Observe("ns/t", image, map[string]any{"image": image, "replicas": int64(i + 1)})
	}
	name := ProfilePrefix + "replicas"
	want := "# HELP " + name + " " + help(g, name) + "\n# TYPE " + name + " gauge\n" +
		`kollect_profile_replicas{image="_other",target="ns/t"} 6
`
	if err := testutil.CollectAndCompare(g, strings.NewReader(want), name); err != nil {
		t.Error(err)
	}
}
