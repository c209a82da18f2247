package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"kollect.dev/kollect/pkg/app"
)

// Metric names.
const (
	// NameInformerObjects is a gauge of the objects cached per GVK.
	NameInformerObjects = "kollect_collector_informer_objects"
	// NameExtractionDuration is a histogram of one Target's evaluation of
	// one object (selection and extraction), per GVK.
	NameExtractionDuration = "kollect_collector_extraction_duration_seconds"
	// NameExtractionFailures counts evaluations that failed, per Target.
	NameExtractionFailures = "kollect_collector_extraction_failures_total"
	// NameBusPublishDuration is a histogram of bus writes, per operation
	// (put, delete, status).
	NameBusPublishDuration = "kollect_collector_bus_publish_duration_seconds"
	// NameRowWrites counts row writes that reached the bus, per operation
	// (put, delete).
	NameRowWrites = "kollect_collector_row_writes_total"
	// NameRowWriteFailures counts row writes the bus rejected or did not
	// acknowledge in time, per operation; each is retried.
	NameRowWriteFailures = "kollect_collector_row_write_failures_total"
	// NameLeader is 1 while this replica works on at least one shard.
	NameLeader = "kollect_collector_leader"
	// NameBusResets counts terms ended because the rows or config bucket
	// was lost, re-created or emptied; the next term rewrote every row.
	NameBusResets = "kollect_collector_bus_resets_total"
	// ProfilePrefix prefixes every Profile spec.metrics gauge.
	ProfilePrefix = "kollect_profile_"
	// NameProfileSeriesDropped is a gauge of the series of a Profile metric
	// left out of the last collection (invalid labels), per Target and
	// metric.
	NameProfileSeriesDropped = "kollect_collector_profile_series_dropped"
	// NameProfileSeriesOverflow is a gauge of the series of a Profile metric
	// over the series cap, summed into its _other series in the last
	// collection, per Target and metric.
	NameProfileSeriesOverflow = "kollect_collector_profile_series_overflow"
)

// Label names.
const (
	// LabelGVK is a group/version/kind, as schema.GroupVersionKind.String().
	LabelGVK = "gvk"
	// LabelTarget is a Target as <namespace>/<name>, or a ClusterTarget's name.
	LabelTarget = "target"
	// LabelOp is a bus operation.
	LabelOp = "op"
	// LabelMetric is a Profile metric's name (spec.metrics[].name).
	LabelMetric = "metric"
)

// Bus operations for LabelOp.
const (
	OpPut    = "put"
	OpDelete = "delete"
	OpStatus = "status"
)

// Metrics are the collector's metrics in their own registry.
type Metrics struct {
	// Registry holds every metric below plus the Go and process collectors.
	Registry *prometheus.Registry
	// ExtractionDuration observes one Target's evaluation of one object.
	ExtractionDuration *prometheus.HistogramVec
	// ExtractionFailures counts failed evaluations per Target.
	ExtractionFailures *prometheus.CounterVec
	// BusPublishDuration observes bus writes per operation.
	BusPublishDuration *prometheus.HistogramVec
	// RowWrites counts row writes per operation.
	RowWrites *prometheus.CounterVec
	// RowWriteFailures counts failed row writes per operation.
	RowWriteFailures *prometheus.CounterVec
	// Leader is 1 while this replica works on at least one shard.
	Leader prometheus.Gauge
	// BusResets counts terms restarted after a bucket loss.
	BusResets prometheus.Counter
	// Profiles are the Profile spec.metrics gauges.
	Profiles *ProfileGauges

	objects atomic.Pointer[func() map[string]int]
	load    atomic.Pointer[func() Load]
}

// New creates the metrics and registers them in a new registry.
func New() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		ExtractionDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    NameExtractionDuration,
			Help:    "Time to select and extract one object for one Target.",
			Buckets: prometheus.ExponentialBuckets(1e-6, 4, 10),
		}, []string{LabelGVK}),
		ExtractionFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NameExtractionFailures,
			Help: "Objects whose selection or required attributes failed to evaluate, per Target.",
		}, []string{LabelTarget}),
		BusPublishDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    NameBusPublishDuration,
			Help:    "Latency of writes to the bus (row puts and deletes, status reports).",
			Buckets: prometheus.ExponentialBuckets(1e-4, 4, 9),
		}, []string{LabelOp}),
		RowWrites: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NameRowWrites,
			Help: "Row puts and deletes written to the rows bucket (unchanged rows are not written).",
		}, []string{LabelOp}),
		RowWriteFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: NameRowWriteFailures,
			Help: "Row puts and deletes the bus rejected or did not acknowledge in time; each is retried.",
		}, []string{LabelOp}),
		Leader: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: NameLeader,
			Help: "1 while this replica works on at least one shard of the Targets, 0 otherwise.",
		}),
		BusResets: prometheus.NewCounter(prometheus.CounterOpts{
			Name: NameBusResets,
			Help: "Terms ended because the rows or config bucket was lost, re-created or emptied; every row was written again.",
		}),
		Profiles: NewProfileGauges(),
	}
	m.Registry.MustRegister(m.collectors()...)
	return m
}

// collectors are everything New registers.
func (m *Metrics) collectors() []prometheus.Collector {
	return append(app.ServiceCollectors(),
		m.ExtractionDuration, m.ExtractionFailures, m.BusPublishDuration, m.RowWrites, m.RowWriteFailures, m.Leader, m.BusResets, m.Profiles,
		&objectsCollector{m: m}, &loadCollector{m: m})
}

// SetInformerObjects sets the function reporting cached objects per GVK
// (nil while no informers run, on a standby replica).
func (m *Metrics) SetInformerObjects(f func() map[string]int) {
	if f == nil {
		m.objects.Store(nil)
		return
	}
	m.objects.Store(&f)
}

var objectsDesc = prometheus.NewDesc(NameInformerObjects, "Objects held in the informer cache, per GVK.", []string{LabelGVK}, nil)

// objectsCollector reads the informer caches at scrape time.
type objectsCollector struct{ m *Metrics }

// Describe sends the one descriptor.
func (c *objectsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- objectsDesc }

// Collect sends the object count of every running informer.
func (c *objectsCollector) Collect(ch chan<- prometheus.Metric) {
	f := c.m.objects.Load()
	if f == nil {
		return
	}
	for gvk, n := range (*f)() {
		if m, err := prometheus.NewConstMetric(objectsDesc, prometheus.GaugeValue, float64(n), gvk); err == nil {
			ch <- m
		}
	}
}
