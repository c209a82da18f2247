package engine

import (
	"github.com/prometheus/client_golang/prometheus"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Metric names of an aggregator shard: a replica reports the shards it
// works on, so the sum over replicas is every inventory and every row read
// once, and a load test reads each replica's share.
const (
	// NameShardInventories is the inventories of the shard (those being
	// deleted and orphans included) on the replica that works on it.
	NameShardInventories = "kollect_aggregator_shard_inventories"
	// NameShardRows is the rows the shard's engine holds: those of the
	// namespaces its inventories read.
	NameShardRows = "kollect_aggregator_shard_rows"
	// LabelShard is the shard's index ("" for an unsharded engine).
	LabelShard = "shard"
)

// shardMetrics are the per-shard instruments.
type shardMetrics struct {
	inventories, rows *prometheus.GaugeVec
}

func newShardMetrics() shardMetrics {
	return shardMetrics{
		inventories: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: NameShardInventories,
			Help: "Inventories of the aggregator shard this replica works on."}, []string{LabelShard}),
		rows: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: NameShardRows,
			Help: "Rows the aggregator shard this replica works on holds."}, []string{LabelShard}),
	}
}

func (s shardMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{s.inventories, s.rows}
}

// shardSize sets the size of the engine's shard.
func (m *Metrics) shardSize(shard string, inventories, rows int) {
	if m != nil {
		m.shard.inventories.WithLabelValues(shard).Set(float64(inventories))
		m.shard.rows.WithLabelValues(shard).Set(float64(rows))
	}
}

// shardGone drops the series of a shard whose engine stopped, and those of
// its inventories: the replica that takes the shard reports them.
func (m *Metrics) shardGone(shard string, invs map[busv1.NamespacedName]*invState) {
	if m == nil {
		return
	}
	m.shard.inventories.DeleteLabelValues(shard)
	m.shard.rows.DeleteLabelValues(shard)
	for name := range invs {
		m.forget(name)
	}
}
