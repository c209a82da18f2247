package chart_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"kollect.dev/kollect/pkg/app/apptest"
)

// metricCatalogues are the registered metric families of every service
// (apptest.Catalogue goldens, checked against the registries in their
// packages).
var metricCatalogues = []string{
	"pkg/exporter/testdata/metrics.golden",
	"services/collector/internal/metrics/testdata/metrics.golden",
	"services/aggregator/internal/engine/testdata/metrics.golden",
}

// scrapeSeries are the series Prometheus itself adds to every target.
var scrapeSeries = []string{"up", "scrape_duration_seconds", "scrape_samples_scraped"}

// registeredMetrics reads the catalogues.
func registeredMetrics(t *testing.T) map[string][]string {
	t.Helper()
	paths := make([]string, 0, len(metricCatalogues))
	for _, p := range metricCatalogues {
		paths = append(paths, repoPath(t, p))
	}
	m, err := apptest.ReadMetricCatalogues(paths...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var (
	promString   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	promMatchers = regexp.MustCompile(`\{[^}]*\}`)
	promRange    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promVariable = regexp.MustCompile(`\$\{[^}]*\}|\$\w+`)
	promIdent    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?`)
	promKeywords = []string{"and", "or", "unless", "offset", "bool", "by", "without", "on", "ignoring", "group_left", "group_right", "inf", "nan"}
)

// metricNames returns the metric names a PromQL expression selects:
// identifiers that are not functions, keywords, label names or literals.
func metricNames(expr string) []string {
	e := promString.ReplaceAllString(expr, `""`)
	e = promMatchers.ReplaceAllString(e, " ")
	e = promRange.ReplaceAllString(e, " ")
	e = promGrouping.ReplaceAllString(e, " ")
	e = promVariable.ReplaceAllString(e, " ")
	var out []string
	for _, m := range promIdent.FindAllStringSubmatchIndex(e, -1) {
		if m[2] >= 0 {
			continue // a function call
		}
		if m[0] > 0 && (e[m[0]-1] >= '0' && e[m[0]-1] <= '9' || e[m[0]-1] == '.') {
			continue // the unit or exponent of a number (5m, 1e3)
		}
		id := e[m[0]:m[1]]
		if !slices.Contains(promKeywords, strings.ToLower(id)) {
			out = append(out, id)
		}
	}
	return out
}

// checkMetricsExist fails for each name in expr that no service registers;
// the _bucket, _sum and _count series of a histogram count as its family.
func checkMetricsExist(t *testing.T, where, expr string, registered map[string][]string) {
	t.Helper()
	names := metricNames(expr)
	if len(names) == 0 {
		t.Errorf("%s: %q selects no metric", where, expr)
	}
	for _, n := range names {
		family := n
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if f := strings.TrimSuffix(n, suffix); f != n {
				if _, ok := registered[f]; ok {
					family = f
				}
			}
		}
		if _, ok := registered[family]; !ok && !slices.Contains(scrapeSeries, family) {
			t.Errorf("%s: %q names %s, which no Kollect service registers", where, expr, n)
		}
	}
}

func TestPromQLMetricNames(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum by (family, type) (rate(kollect_exporter_export_errors_total{namespace="x", reason=~"a|b"}[5m])) > 0.05`:  {"kollect_exporter_export_errors_total"},
		`time() - max by (sink) (kollect_exporter_sink_last_success_timestamp_seconds{namespace="$namespace"}) > 3600`: {"kollect_exporter_sink_last_success_timestamp_seconds"},
		`histogram_quantile(0.99, sum by (le) (rate(a_bucket[$__rate_interval]))) / on (x) group_left b`:               {"a_bucket", "b"},
		`absent(up{service="control"} == 1) and 1e3 < bool c offset 5m`:                                                {"up", "c"},
	} {
		if got := metricNames(expr); !slices.Equal(got, want) {
			t.Errorf("metricNames(%q) = %v, want %v", expr, got, want)
		}
	}
}

// panel is the part of a Grafana panel the test reads.
type panel struct {
	Title   string  `json:"title"`
	Type    string  `json:"type"`
	Panels  []panel `json:"panels"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

// panels flattens the panels of rows.
func panels(ps []panel) []panel {
	var out []panel
	for _, p := range ps {
		out = append(out, p)
		out = append(out, panels(p.Panels)...)
	}
	return out
}

func TestEveryDashboardPanelQueriesRegisteredMetrics(t *testing.T) {
	registered := registeredMetrics(t)
	files, err := filepath.Glob("files/dashboards/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards in files/dashboards (%v)", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var d struct {
				UID    string  `json:"uid"`
				Title  string  `json:"title"`
				Panels []panel `json:"panels"`
			}
			if err := json.Unmarshal(b, &d); err != nil {
				t.Fatalf("parse: %v", err)
			}
			if d.UID == "" || d.Title == "" {
				t.Errorf("uid %q, title %q: both must be set", d.UID, d.Title)
			}
			for _, p := range panels(d.Panels) {
				if p.Type == "row" {
					continue
				}
				if len(p.Targets) == 0 {
					t.Errorf("panel %q has no query", p.Title)
				}
				for _, q := range p.Targets {
					checkMetricsExist(t, "panel "+p.Title, q.Expr, registered)
				}
			}
		})
	}
}

func TestDashboardsRenderIntoAConfigMapTheGrafanaSidecarLoads(t *testing.T) {
	files, _ := filepath.Glob("files/dashboards/*.json")
	cases := []struct {
		name   string
		sets   []string
		labels map[string]string
		ns     string
	}{
		{"with the default label", []string{"monitoring.dashboards.enabled=true"}, map[string]string{"grafana_dashboard": "1"}, namespace},
		{"with a label and a namespace of the operator's choice",
			[]string{"monitoring.dashboards.enabled=true", "monitoring.dashboards.labels.grafana_dashboard=null",
				"monitoring.dashboards.labels.dashboards=kollect", "monitoring.dashboards.namespace=monitoring"},
			map[string]string{"dashboards": "kollect"}, "monitoring"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cm := find(t, decode(t, render(t, "", c.sets...)), "ConfigMap", "kollect-dashboards")
			for k, v := range c.labels {
				if got := cm.GetLabels()[k]; got != v {
					t.Errorf("label %s = %q, want %q", k, got, v)
				}
			}
			if cm.GetNamespace() != c.ns {
				t.Errorf("namespace %q, want %q", cm.GetNamespace(), c.ns)
			}
			data, _ := cm.Object["data"].(map[string]any)
			for _, f := range files {
				want, _ := os.ReadFile(f)
				if got, _ := data[filepath.Base(f)].(string); got != strings.TrimRight(string(want), "\n") {
					t.Errorf("%s in the ConfigMap differs from the file", filepath.Base(f))
				}
			}
		})
	}
	t.Run("off by default", func(t *testing.T) {
		if slices.Contains(index(decode(t, render(t, ""))), "ConfigMap/kollect-dashboards") {
			t.Error("the dashboards ConfigMap is rendered by default")
		}
	})
}

// anchors returns the GitHub anchors of the headings of a Markdown file.
func anchors(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		h = regexp.MustCompile(`[^\p{L}\p{N} _-]`).ReplaceAllString(h, "")
		out = append(out, strings.ReplaceAll(h, " ", "-"))
	}
	return out
}

func TestEveryAlertQueriesRegisteredMetricsAndHasARunbook(t *testing.T) {
	registered := registeredMetrics(t)
	headings := anchors(t, repoPath(t, "docs/troubleshooting.md"))
	rule := find(t, decode(t, render(t, "ci/full-values.yaml")), "PrometheusRule", "kollect")
	groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
	alerts := map[string]bool{}
	for _, g := range groups {
		rules, _ := g.(map[string]any)["rules"].([]any)
		for _, r := range rules {
			r := r.(map[string]any)
			name, _ := r["alert"].(string)
			alerts[name] = true
			checkMetricsExist(t, "alert "+name, r["expr"].(string), registered)
			ann, _ := r["annotations"].(map[string]any)
			url, _ := ann["runbook_url"].(string)
			base, anchor, ok := strings.Cut(url, "#")
			if !ok || !strings.HasSuffix(base, "docs/troubleshooting.md") {
				t.Errorf("alert %s: runbook_url %q does not point into docs/troubleshooting.md", name, url)
				continue
			}
			if !slices.Contains(headings, anchor) {
				t.Errorf("alert %s: runbook_url anchor #%s is not a heading of docs/troubleshooting.md", name, anchor)
			}
		}
	}
	for _, want := range []string{"KollectExporterDown", "KollectControlDown", "KollectSinkStale", "KollectSinkRefusesExports"} {
		if !alerts[want] {
			t.Errorf("alert %s is missing (have %v)", want, alerts)
		}
	}
}

func TestEachExporterFamilyHasItsOwnDownAlert(t *testing.T) {
	rule := find(t, decode(t, render(t, "", "metrics.prometheusRule.enabled=true", "exporters.event.enabled=false")), "PrometheusRule", "kollect")
	groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
	var families []string
	for _, g := range groups {
		rules, _ := g.(map[string]any)["rules"].([]any)
		for _, r := range rules {
			r := r.(map[string]any)
			if r["alert"] != "KollectExporterDown" {
				continue
			}
			labels, _ := r["labels"].(map[string]any)
			f, _ := labels["family"].(string)
			families = append(families, f)
			if want := `service="` + f + `-exporter"`; !strings.Contains(r["expr"].(string), want) {
				t.Errorf("the %s down alert %q does not select %s", f, r["expr"], want)
			}
		}
	}
	slices.Sort(families)
	if want := []string{"database", "snapshot"}; !slices.Equal(families, want) {
		t.Errorf("KollectExporterDown families %v, want %v (one per enabled family)", families, want)
	}
}

func TestTheOperationsMetricsTableListsEveryRegisteredKollectMetric(t *testing.T) {
	registered := registeredMetrics(t)
	b, err := os.ReadFile(repoPath(t, "docs/operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(kollect_[a-z0-9_]+)` \\|").FindAllStringSubmatch(string(b), -1) {
		documented[m[1]] = true
	}
	for name := range registered {
		if strings.HasPrefix(name, "kollect_") && !documented[name] {
			t.Errorf("%s is registered but not in the metrics table of docs/operations.md", name)
		}
	}
	for name := range documented {
		if _, ok := registered[name]; !ok {
			t.Errorf("docs/operations.md documents %s, which no service registers", name)
		}
	}
}
