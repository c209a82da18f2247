package metrics

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
)

// ProfileGauges exposes the gauges of KollectProfile spec.metrics: for each
// metric one gauge family kollect_profile_<name> with the label target plus
// one label per listed attribute, valued by the numeric attribute named by
// path. Objects of one Target with the same label values add up, so a
// metric labelled by image sums the replicas of every object running it.
//
// Two Profiles may declare the same metric name only with the same labels;
// a Target whose labels conflict with an earlier Target (in name order) is
// left out of that family, and a family takes the help text of its first
// Target. A metric whose label names collide (a Profile compilation refuses
// it; this is the defensive side) is left out, as are label values that are
// not valid UTF-8: kollect_collector_profile_series_dropped counts them.
// Each (Target, metric) exposes at most MaxSeries series: over the cap, the
// first MaxSeries-1 in label order and one overflow series whose attribute
// labels are all OtherLabel, summing the rest
// (kollect_collector_profile_series_overflow counts the series it folds).
// Whatever a Profile says, Collect never panics. It is safe for concurrent
// use.
type ProfileGauges struct {
	// MaxSeries caps the series of one metric of one Target, the overflow
	// series included; 0 means DefaultMaxSeries. Set it before use.
	MaxSeries int

	mu      sync.Mutex
	targets map[string]*profileTarget
}

// DefaultMaxSeries is the default cap on the series of one Profile metric of
// one Target.
const DefaultMaxSeries = 1000

// OtherLabel is the value of every attribute label of the overflow series
// of a Profile metric over its series cap.
const OtherLabel = "_other"

var (
	droppedDesc = prometheus.NewDesc(NameProfileSeriesDropped,
		"Series of a KollectProfile metric left out of the last collection: label names that collide, or label values that are not valid UTF-8.",
		[]string{LabelTarget, LabelMetric}, nil)
	overflowDesc = prometheus.NewDesc(NameProfileSeriesOverflow,
		`Series of a KollectProfile metric over the series cap, summed into its series whose attribute labels are "_other", in the last collection.`,
		[]string{LabelTarget, LabelMetric}, nil)
)

type profileTarget struct {
	defs []metricDef
	rows map[string][]sample // by object uid, one sample per def
}

type metricDef struct {
	name    string // full metric name
	path    string // attribute giving the value
	labels  []string
	names   []string // label names: target, then sanitised attribute names
	invalid bool     // label names collide: never exposed
}

type sample struct {
	ok     bool
	value  float64
	labels []string // values, without the target
}

// NewProfileGauges returns an empty set of gauges.
func NewProfileGauges() *ProfileGauges {
	return &ProfileGauges{targets: map[string]*profileTarget{}}
}

// Define sets the metrics of a Target, dropping its samples when they
// changed. No metrics removes the Target.
func (g *ProfileGauges) Define(target string, defs []v1alpha1.ProfileMetric) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(defs) == 0 {
		delete(g.targets, target)
		return
	}
	out := make([]metricDef, 0, len(defs))
	seen := map[string]bool{}
	for _, d := range defs {
		if seen[d.Name] {
			continue // a repeated name (refused when compiled) would repeat series
		}
		seen[d.Name] = true
		names := []string{LabelTarget}
		for _, l := range d.Labels {
			names = append(names, extract.MetricLabelName(l))
		}
		invalid := len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names)
		out = append(out, metricDef{name: ProfilePrefix + d.Name, path: d.Path, labels: d.Labels, names: names, invalid: invalid})
	}
	if t, ok := g.targets[target]; ok && slices.EqualFunc(t.defs, out, sameDef) {
		return
	}
	g.targets[target] = &profileTarget{defs: out, rows: map[string][]sample{}}
}

func sameDef(a, b metricDef) bool {
	return a.name == b.name && a.path == b.path && slices.Equal(a.labels, b.labels)
}

// Observe records an object's attributes for a Target's metrics.
func (g *ProfileGauges) Observe(target, uid string, attrs map[string]any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	t, ok := g.targets[target]
	if !ok {
		return
	}
	s := make([]sample, len(t.defs))
	for i, d := range t.defs {
		v, ok := number(attrs[d.path])
		s[i] = sample{ok: ok, value: v, labels: make([]string, len(d.labels))}
		for j, l := range d.labels {
			s[i].labels[j] = labelValue(attrs[l])
		}
	}
	t.rows[uid] = s
}

// Forget removes an object from a Target's metrics.
func (g *ProfileGauges) Forget(target, uid string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t, ok := g.targets[target]; ok {
		delete(t.rows, uid)
	}
}

// Reset removes every Target, when a replica stops being active.
func (g *ProfileGauges) Reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.targets = map[string]*profileTarget{}
}

// number reads a gauge value: numbers, and booleans as 0 or 1.
func number(v any) (float64, bool) {
	switch t := v.(type) {
	case int64:
		return float64(t), true
	case int:
		return float64(t), true
	case int32:
		return float64(t), true
	case float64:
		return t, true
	case bool:
		if t {
			return 1, true
		}
		return 0, true
	case json.Number:
		f, err := t.Float64()
		return f, err == nil
	}
	return 0, false
}

func labelValue(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// Describe sends nothing: the families depend on the Profiles, so the
// collector is unchecked.
func (g *ProfileGauges) Describe(chan<- *prometheus.Desc) {}

// Collect sends one gauge per metric, Target and label values, at most
// MaxSeries per metric and Target, and the count of what it left out.
func (g *ProfileGauges) Collect(ch chan<- prometheus.Metric) {
	g.mu.Lock()
	defer g.mu.Unlock()
	families := map[string]*prometheus.Desc{} // the first valid definition of each name wins
	first := map[string]metricDef{}
	for _, target := range slices.Sorted(maps.Keys(g.targets)) {
		t := g.targets[target]
		for i, d := range t.defs {
			f, ok := first[d.name]
			switch {
			case d.invalid:
				g.count(ch, droppedDesc, target, d, len(t.sums(i)))
				continue
			case ok && !slices.Equal(f.names, d.names):
				continue
			case !ok:
				first[d.name] = d
				families[d.name] = prometheus.NewDesc(d.name, "KollectProfile metric "+strings.TrimPrefix(d.name, ProfilePrefix)+
					": attribute "+d.path+", summed over a Target's objects with the same labels.", d.names, nil)
			}
			dropped, folded := g.collectSeries(ch, families[d.name], target, t.sums(i))
			g.count(ch, droppedDesc, target, d, dropped)
			g.count(ch, overflowDesc, target, d, folded)
		}
	}
}

// collectSeries sends the sums in label order, at most MaxSeries: over the
// cap, the first MaxSeries-1 and the overflow series summing the others. It
// returns how many it left out (invalid label values) and how many it folded
// into the overflow series.
func (g *ProfileGauges) collectSeries(ch chan<- prometheus.Metric, desc *prometheus.Desc, target string, sums map[string]*sample) (dropped, folded int) {
	keys := slices.Sorted(maps.Keys(sums))
	limit := g.MaxSeries
	if limit <= 0 {
		limit = DefaultMaxSeries
	}
	var other *sample
	if len(keys) > limit {
		other = &sample{labels: make([]string, len(sums[keys[0]].labels))}
		for i := range other.labels {
			other.labels[i] = OtherLabel
		}
		for _, k := range keys[limit-1:] {
			other.value += sums[k].value
		}
		folded = len(keys) - (limit - 1)
		keys = keys[:limit-1]
		if k := strings.Join(other.labels, "\xff"); slices.Contains(keys, k) {
			sums[k].value += other.value // a real series labelled _other: one series, not two
			other = nil
		}
	}
	send := func(sum *sample) {
		m, err := prometheus.NewConstMetric(desc, prometheus.GaugeValue, sum.value, append([]string{target}, sum.labels...)...)
		if err != nil {
			dropped++ // an invalid label value; the description was checked when defined
			return
		}
		ch <- m
	}
	for _, k := range keys {
		send(sums[k])
	}
	if other != nil {
		send(other)
	}
	return dropped, folded
}

// count reports n series of a Target's metric (dropped or folded) in this
// collection; nothing when n is 0.
func (g *ProfileGauges) count(ch chan<- prometheus.Metric, desc *prometheus.Desc, target string, d metricDef, n int) {
	if n == 0 {
		return
	}
	if m, err := prometheus.NewConstMetric(desc, prometheus.GaugeValue, float64(n), target, strings.TrimPrefix(d.name, ProfilePrefix)); err == nil {
		ch <- m
	}
}

// sums adds up metric i over objects with the same label values.
func (t *profileTarget) sums(i int) map[string]*sample {
	out := map[string]*sample{}
	for _, s := range t.rows {
		if !s[i].ok {
			continue
		}
		key := strings.Join(s[i].labels, "\xff")
		if sum, ok := out[key]; ok {
			sum.value += s[i].value
		} else {
			out[key] = &sample{ok: true, value: s[i].value, labels: s[i].labels}
		}
	}
	return out
}
