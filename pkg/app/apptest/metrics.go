package apptest

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"kollect.dev/kollect/pkg/testenv/golden"
)

// MetricsGoldenPath is where a package's metric catalogue lives, next to
// its test; the chart's dashboard and alert tests and the operations docs
// test read every catalogue.
const MetricsGoldenPath = "testdata/metrics.golden"

// Catalogue is a prometheus.Registerer that records the metric families
// the collectors registered on it describe: name and labels (variable and
// constant). It
// collects nothing, so families of vectors without series are listed too.
type Catalogue struct {
	families map[string]string // name: sorted labels, comma-separated
}

var _ prometheus.Registerer = (*Catalogue)(nil)

// Register records the descriptions of c.
func (k *Catalogue) Register(c prometheus.Collector) error {
	ch := make(chan *prometheus.Desc)
	go func() { c.Describe(ch); close(ch) }()
	for d := range ch {
		k.Add(d)
	}
	return nil
}

// MustRegister records the descriptions of cs.
func (k *Catalogue) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		_ = k.Register(c)
	}
}

// Unregister does nothing: a catalogue keeps what was once registered.
func (k *Catalogue) Unregister(prometheus.Collector) bool { return false }

var (
	descName   = regexp.MustCompile(`fqName: "([^"]+)"`)
	descLabels = regexp.MustCompile(`variableLabels: \{([^}]*)\}`)
	descConst  = regexp.MustCompile(`constLabels: \{([^}]*)\}`)
	constKey   = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="`)
)

// Add records descriptions directly: those of unchecked collectors, which
// describe nothing.
func (k *Catalogue) Add(ds ...*prometheus.Desc) {
	if k.families == nil {
		k.families = map[string]string{}
	}
	for _, d := range ds {
		s := d.String()
		name := descName.FindStringSubmatch(s)
		if name == nil {
			continue
		}
		var labels []string
		if old := k.families[name[1]]; old != "" {
			labels = strings.Split(old, ",")
		}
		if l := descLabels.FindStringSubmatch(s); l != nil && l[1] != "" {
			labels = append(labels, strings.Split(l[1], ",")...)
		}
		if l := descConst.FindStringSubmatch(s); l != nil {
			for _, m := range constKey.FindAllStringSubmatch(l[1], -1) {
				labels = append(labels, m[1])
			}
		}
		slices.Sort(labels)
		k.families[name[1]] = strings.Join(slices.Compact(labels), ",")
	}
}

// String is the catalogue as golden text: one "name labels" line per family, sorted.
func (k *Catalogue) String() string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(k.families)) {
		b.WriteString(strings.TrimSpace(name + " " + k.families[name]))
		b.WriteByte('\n')
	}
	return b.String()
}

// CheckMetrics compares k with MetricsGoldenPath; go test -update rewrites
// the file.
func CheckMetrics(t *testing.T, k *Catalogue) {
	t.Helper()
	golden.Check(t, MetricsGoldenPath, []byte(k.String()))
}

// ReadMetricCatalogues reads the catalogues at paths into one map from
// metric family name to its variable labels.
func ReadMetricCatalogues(paths ...string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p) //nolint:gosec // G304: the test's own golden and docs paths
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			name, labels, _ := strings.Cut(line, " ")
			if labels == "" {
				out[name] = nil
			} else {
				out[name] = strings.Split(labels, ",")
			}
		}
	}
	return out, nil
}
