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
)

// ProfileGauges exposes the gauges of KollectProfile spec.metrics: for each
// metric one gauge family kollect_profile_<name> with the label target plus
// one label per listed attribute, valued by the numeric attribute named by
// path. Objects of one Target with the same label values add up, so a
// metric labelled by image sums the replicas of every object running it.
//
// Two Profiles may declare the same metric name only with the same labels;
// a Target whose labels conflict with an earlier Target (in name order) is
// left out of that family. It is safe for concurrent use.
type ProfileGauges struct {
	mu      sync.Mutex
	targets map[string]*profileTarget
}

type profileTarget struct {
	defs []metricDef
	rows map[string][]sample // by object uid, one sample per def
}

type metricDef struct {
	name   string // full metric name
	path   string // attribute giving the value
	labels []string
	names  []string // label names: target, then sanitised attribute names
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
	for _, d := range defs {
		names := []string{LabelTarget}
		for _, l := range d.Labels {
			names = append(names, labelName(l))
		}
		out = append(out, metricDef{name: ProfilePrefix + d.Name, path: d.Path, labels: d.Labels, names: names})
	}
	if t, ok := g.targets[target]; ok && slices.EqualFunc(t.defs, out, sameDef) {
		return
	}
	g.targets[target] = &profileTarget{defs: out, rows: map[string][]sample{}}
}

func sameDef(a, b metricDef) bool {
	return a.name == b.name && a.path == b.path && slices.Equal(a.labels, b.labels)
}

// labelName turns an attribute name into a label name that cannot collide
// with the target label or a reserved name.
func labelName(attr string) string {
	if attr == LabelTarget || strings.HasPrefix(attr, "__") {
		return "attribute_" + attr
	}
	return attr
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

// Collect sends one gauge per metric, Target and label values.
func (g *ProfileGauges) Collect(ch chan<- prometheus.Metric) {
	g.mu.Lock()
	defer g.mu.Unlock()
	families := map[string]metricDef{} // first definition of each name wins
	for _, target := range slices.Sorted(maps.Keys(g.targets)) {
		t := g.targets[target]
		for i, d := range t.defs {
			if f, ok := families[d.name]; ok && !slices.Equal(f.names, d.names) {
				continue
			} else if !ok {
				families[d.name] = d
			}
			desc := prometheus.NewDesc(d.name, "KollectProfile metric "+strings.TrimPrefix(d.name, ProfilePrefix)+
				": attribute "+d.path+", summed over a Target's objects with the same labels.", d.names, nil)
			for _, sum := range t.sums(i) {
				values := append([]string{target}, sum.labels...)
				ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, sum.value, values...)
			}
		}
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
