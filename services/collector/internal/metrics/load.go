package metrics

import "github.com/prometheus/client_golang/prometheus"

// Names of the gauges of a replica's share of the work.
const (
	// NameShardsHeld is a gauge of the shards this replica works on.
	NameShardsHeld = "kollect_collector_shards_held"
	// NameTargets is a gauge of the Targets of those shards.
	NameTargets = "kollect_collector_targets"
	// NameRows is a gauge of the rows of those Targets.
	NameRows = "kollect_collector_rows"
)

// Load is a replica's share of the work, read at scrape time.
type Load struct {
	// Shards held, Targets in them and their rows on the bus.
	Shards, Targets, Rows int
}

var (
	shardsDesc  = prometheus.NewDesc(NameShardsHeld, "Shards of the Targets this replica works on.", nil, nil)
	targetsDesc = prometheus.NewDesc(NameTargets, "Targets of the shards this replica works on.", nil, nil)
	rowsDesc    = prometheus.NewDesc(NameRows, "Rows on the bus of the Targets this replica works on, once its pending writes land.", nil, nil)
)

// SetLoad sets the function reporting the replica's share of the work (nil
// between terms: every gauge reads 0).
func (m *Metrics) SetLoad(f func() Load) {
	if f == nil {
		m.load.Store(nil)
		return
	}
	m.load.Store(&f)
}

// loadCollector reads the replica's share at scrape time.
type loadCollector struct{ m *Metrics }

// Describe sends the descriptors.
func (c *loadCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- shardsDesc
	ch <- targetsDesc
	ch <- rowsDesc
}

// Collect sends the three gauges.
func (c *loadCollector) Collect(ch chan<- prometheus.Metric) {
	var l Load
	if f := c.m.load.Load(); f != nil {
		l = (*f)()
	}
	ch <- prometheus.MustNewConstMetric(shardsDesc, prometheus.GaugeValue, float64(l.Shards))
	ch <- prometheus.MustNewConstMetric(targetsDesc, prometheus.GaugeValue, float64(l.Targets))
	ch <- prometheus.MustNewConstMetric(rowsDesc, prometheus.GaugeValue, float64(l.Rows))
}
