package engine

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Metric names of the aggregator.
const (
	// NameLeader is 1 while this replica holds the lease and runs the
	// engine, 0 otherwise.
	NameLeader = "kollect_aggregator_leader"
	// NameSnapshotDuration is a histogram of the time to build one
	// inventory's snapshot from the row index (sort, canonical JSON,
	// checksum).
	NameSnapshotDuration = "kollect_aggregator_snapshot_duration_seconds"
	// NamePublishDuration is a histogram of successful snapshot event
	// publishes, including the envelope's upload to the object store, per
	// reason.
	NamePublishDuration = "kollect_aggregator_publish_duration_seconds"
	// NamePublishes counts snapshot events published, per reason.
	NamePublishes = "kollect_aggregator_publishes_total"
	// NamePublishErrors counts snapshot event publishes that failed; each is
	// retried after the engine's backoff.
	NamePublishErrors = "kollect_aggregator_publish_errors_total"
	// NameSnapshotRows is the number of rows in the inventory's last
	// published snapshot; the series goes when the inventory is deleted.
	NameSnapshotRows = "kollect_aggregator_snapshot_rows"
	// NameSnapshotBytes is the size of the canonical item list of the inventory's last
	// published snapshot; the series goes when the inventory is deleted.
	NameSnapshotBytes = "kollect_aggregator_snapshot_bytes"
	// NameRowUpdates counts entries of the rows bucket applied to the row
	// index (puts and deletes, the rebuild's included).
	NameRowUpdates = "kollect_aggregator_row_updates_total"
	// NameObjectBytes counts bytes written to the envelope object store.
	NameObjectBytes = "kollect_aggregator_object_bytes_written_total"
	// NameBulkDeferred counts settles whose publish waited for more of a
	// bulk arrival of rows (bulk.go).
	NameBulkDeferred = "kollect_aggregator_bulk_deferred_total"
	// NameGCDeleted counts objects garbage collection deleted.
	NameGCDeleted = "kollect_aggregator_gc_deleted_objects_total"
	// NameHistoryLost counts inventories whose snapshot history was gone
	// while a floor (export state or the status' last revision) showed they
	// had published: the sequence continued above the floor, per source.
	NameHistoryLost = "kollect_aggregator_history_lost_total"
	// NameHeld is 1 while the engine holds publishes: "rows" until the
	// collector's rows-synced marker is in the rows bucket, "config" (held
	// deletions) until control's config-complete marker is in the config
	// bucket.
	NameHeld = "kollect_aggregator_held"
)

// Label names.
const (
	// LabelReason is the busv1.SnapshotReason of a published event.
	LabelReason = "reason"
	// LabelSource is where a revision floor came from: export-state or
	// status.
	LabelSource = "source"
	// LabelBucket is the bucket whose marker is missing: rows or config.
	LabelBucket = "bucket"
	// LabelInventory is an inventory as <namespace>/<name>, or a
	// ClusterInventory's name (busv1.NamespacedName.String).
	LabelInventory = "inventory"
)

// Metrics are the engine's instruments; a nil *Metrics records nothing.
type Metrics struct {
	leader           prometheus.Gauge
	snapshotDuration prometheus.Histogram
	publishDuration  *prometheus.HistogramVec
	publishes        *prometheus.CounterVec
	publishErrors    prometheus.Counter
	rows             *prometheus.GaugeVec
	bytes            *prometheus.GaugeVec
	rowUpdates       prometheus.Counter
	objectBytes      prometheus.Counter
	bulkDeferrals    prometheus.Counter
	gcDeleted        prometheus.Counter
	historyLost      *prometheus.CounterVec
	held             *prometheus.GaugeVec
	usage            usageMetrics
	shard            shardMetrics
	// engines is how many engines run (one per shard held): leader is 1
	// while any does.
	engines int
	mu      sync.Mutex
}

// NewMetrics registers the engine's instruments on reg; nil reg returns nil,
// which records nothing. Call it once per registry, not once per engine: a
// replica that loses and regains the lease runs a new engine on the same
// Metrics.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	if reg == nil {
		return nil
	}
	// 1 ms to 32.8 s: a small inventory's snapshot to a 100k-row envelope
	// going through the object store.
	buckets := prometheus.ExponentialBuckets(0.001, 2, 16)
	m := &Metrics{
		leader: prometheus.NewGauge(prometheus.GaugeOpts{Name: NameLeader,
			Help: "1 while this replica holds the lease and runs the engine."}),
		snapshotDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: NameSnapshotDuration,
			Help: "Time to build one inventory's snapshot from the row index.", Buckets: buckets}),
		publishDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: NamePublishDuration,
			Help: "Time to publish one snapshot event, object-store upload included.", Buckets: buckets},
			[]string{LabelReason}),
		publishes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: NamePublishes,
			Help: "Snapshot events published by reason."}, []string{LabelReason}),
		publishErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: NamePublishErrors,
			Help: "Snapshot event publishes that failed (retried after the backoff)."}),
		rows: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: NameSnapshotRows,
			Help: "Rows in the inventory's last published snapshot."}, []string{LabelInventory}),
		bytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: NameSnapshotBytes,
			Help: "Size of the canonical JSON item list of the inventory's last published snapshot."}, []string{LabelInventory}),
		objectBytes: prometheus.NewCounter(prometheus.CounterOpts{Name: NameObjectBytes,
			Help: "Bytes written to the envelope object store (chunks, manifests, deltas); content already stored is not written again."}),
		bulkDeferrals: prometheus.NewCounter(prometheus.CounterOpts{Name: NameBulkDeferred,
			Help: "Settles whose publish waited because rows were still being added in bulk (initial sync, new Target, re-list)."}),
		gcDeleted: prometheus.NewCounter(prometheus.CounterOpts{Name: NameGCDeleted,
			Help: "Objects deleted from the envelope object store because no retained snapshot references them."}),
		rowUpdates: prometheus.NewCounter(prometheus.CounterOpts{Name: NameRowUpdates,
			Help: "Rows bucket entries applied to the row index."}),
		historyLost: prometheus.NewCounterVec(prometheus.CounterOpts{Name: NameHistoryLost,
			Help: "Inventories whose snapshot history was lost; their revisions continued above the floor of this source."},
			[]string{LabelSource}),
		held: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: NameHeld,
			Help: "1 while publishes are held for a bucket's marker: rows (rows-synced) or config (config-complete)."},
			[]string{LabelBucket}),
		usage: newUsageMetrics(), shard: newShardMetrics(),
	}
	reg.MustRegister(m.leader, m.snapshotDuration, m.publishDuration, m.publishes, m.publishErrors,
		m.rows, m.bytes, m.rowUpdates, m.objectBytes, m.bulkDeferrals, m.gcDeleted, m.historyLost, m.held)
	reg.MustRegister(m.usage.collectors()...)
	reg.MustRegister(m.shard.collectors()...)
	// Every reason's series exists from the start, so rate() sees the first
	// event.
	for _, r := range []busv1.SnapshotReason{busv1.ReasonChange, busv1.ReasonPeriodic, busv1.ReasonDeleted} {
		m.publishes.WithLabelValues(string(r))
	}
	return m
}

// lead marks an engine running: this replica leads (works on a shard).
func (m *Metrics) lead() {
	if m != nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.engines++
		m.leader.Set(1)
	}
}

// stepDown marks an engine stopped; the replica stops leading with its
// last. The engine drops its inventories' series itself (shardGone): a
// replica does not report the snapshots it no longer publishes.
func (m *Metrics) stepDown() {
	if m != nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.engines--
		if m.engines == 0 {
			m.leader.Set(0)
		}
	}
}

func (m *Metrics) snapshotBuilt(d time.Duration) {
	if m != nil {
		m.snapshotDuration.Observe(d.Seconds())
	}
}

// published records one publish of ev: its duration and the snapshot's size
// on success, a failure otherwise.
func (m *Metrics) published(ev *busv1.SnapshotEvent, envBytes int64, d time.Duration, err error) {
	if m == nil {
		return
	}
	if err != nil {
		m.publishErrors.Inc()
		return
	}
	reason := string(ev.Reason)
	m.publishDuration.WithLabelValues(reason).Observe(d.Seconds())
	m.publishes.WithLabelValues(reason).Inc()
	inv := ev.Inventory.String()
	m.rows.WithLabelValues(inv).Set(float64(ev.ItemCount))
	m.bytes.WithLabelValues(inv).Set(float64(envBytes))
}

// forget drops the series of a deleted inventory.
func (m *Metrics) forget(inv busv1.NamespacedName) {
	if m != nil {
		m.rows.DeleteLabelValues(inv.String())
		m.bytes.DeleteLabelValues(inv.String())
	}
}

func (m *Metrics) rowApplied() {
	if m != nil {
		m.rowUpdates.Inc()
	}
}

// stored counts object bytes written.
func (m *Metrics) stored(n int64) {
	if m != nil {
		m.objectBytes.Add(float64(n))
	}
}

// bulkDeferred counts a settle deferred by a bulk arrival.
func (m *Metrics) bulkDeferred() {
	if m != nil {
		m.bulkDeferrals.Inc()
	}
}

// collected counts objects deleted by garbage collection.
func (m *Metrics) collected(n int) {
	if m != nil {
		m.gcDeleted.Add(float64(n))
	}
}

// lostHistory counts an inventory whose history was gone below a floor.
func (m *Metrics) lostHistory(source string) {
	if m != nil {
		m.historyLost.WithLabelValues(source).Inc()
	}
}

// holding sets whether publishes are held for a bucket's marker.
func (m *Metrics) holding(bucket string, held bool) {
	if m == nil {
		return
	}
	v := 0.0
	if held {
		v = 1
	}
	m.held.WithLabelValues(bucket).Set(v)
}
