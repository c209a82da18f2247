package exporter

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Per-sink metric names. Their series carry the sink's namespace, name,
// type and cluster (labels sink_namespace, sink, type, cluster) and are
// deleted when the sink's config is deleted, so their number is bounded by
// the number of sinks of the family. Each replica reports the sinks it
// wrote; aggregate with max (timestamps) or sum (counters) across replicas.
const (
	// NameSinkLastSuccess is the Unix time the sink was last known to hold
	// the latest snapshot of a binding: a successful write, or a re-export
	// (periodic, redelivered) of a revision it already held. Its age is
	// time() - the gauge; it stays low while every binding's periodic
	// re-exports (exportMinInterval) reach the exporter and find the sink
	// current.
	NameSinkLastSuccess = "kollect_exporter_sink_last_success_timestamp_seconds"
	// NameBindingLastSuccess is NameSinkLastSuccess per binding: the Unix
	// time the sink was last known to hold the latest snapshot of one
	// inventory (labels inventory_namespace and inventory added). The sink's
	// gauge is the newest of its bindings, so one stale inventory of a sink
	// shared by several hides behind the others; this one shows it. Its
	// series are deleted with the sink's, and when the binding is gone (its
	// worker swept), so their number is bounded by the bindings served.
	NameBindingLastSuccess = "kollect_exporter_binding_last_success_timestamp_seconds"
	// NameSinkExports counts successful writes to the sink.
	NameSinkExports = "kollect_exporter_sink_exports_total"
	// NameSinkBytes counts the envelope bytes delivered to the sink.
	NameSinkBytes = "kollect_exporter_sink_export_bytes_total"
	// NameSinkRows counts the rows of the snapshots delivered to the sink
	// (a snapshot's full row count, also when the sink applied a delta).
	NameSinkRows = "kollect_exporter_sink_export_rows_total"
	// NameSinkFailures counts failed export attempts to the sink by reason
	// (ReasonPermanent, ReasonTransient, ReasonDenied).
	NameSinkFailures = "kollect_exporter_sink_failures_total"
)

// sinkLabels are the per-sink series' variable labels, in order.
var sinkLabels = []string{"sink_namespace", "sink", "type", "cluster"}

// bindingLabels are the per-binding series' variable labels, in order.
var bindingLabels = append(append([]string(nil), sinkLabels...), "inventory_namespace", "inventory")

// sinkMetrics are the per-sink instruments.
type sinkMetrics struct {
	last     *prometheus.GaugeVec
	binding  *prometheus.GaugeVec
	exports  *prometheus.CounterVec
	bytes    *prometheus.CounterVec
	rows     *prometheus.CounterVec
	failures *prometheus.CounterVec
}

func newSinkMetrics(labels prometheus.Labels) sinkMetrics {
	counter := func(name, help string, extra ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels},
			append(append([]string(nil), sinkLabels...), extra...))
	}
	return sinkMetrics{
		last: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: NameSinkLastSuccess, ConstLabels: labels,
			Help: "Unix time the sink last took or already held a binding's latest snapshot (age: time() - this)."}, sinkLabels),
		binding: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: NameBindingLastSuccess, ConstLabels: labels,
			Help: "Unix time the sink last took or already held the inventory's latest snapshot (age: time() - this)."}, bindingLabels),
		exports:  counter(NameSinkExports, "Successful writes to the sink."),
		bytes:    counter(NameSinkBytes, "Envelope bytes delivered to the sink."),
		rows:     counter(NameSinkRows, "Rows of the snapshots delivered to the sink."),
		failures: counter(NameSinkFailures, "Failed export attempts to the sink by reason.", "reason"),
	}
}

func (s sinkMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{s.last, s.binding, s.exports, s.bytes, s.rows, s.failures}
}

// sinkValues are cfg's values of sinkLabels.
func sinkValues(cfg busv1.SinkConfig) []string {
	return []string{cfg.Namespace, cfg.Name, cfg.Type, cfg.Cluster}
}

// bindingValues are the values of bindingLabels of inv's binding to cfg's sink.
func bindingValues(cfg busv1.SinkConfig, inv busv1.NamespacedName) []string {
	return append(sinkValues(cfg), inv.Namespace, inv.Name)
}

// sinkExported records one successful write of inv's rows and bytes to
// cfg's sink at now.
func (m *metrics) sinkExported(cfg busv1.SinkConfig, inv busv1.NamespacedName, now time.Time, bytes int64, rows int) {
	if m == nil {
		return
	}
	v := sinkValues(cfg)
	m.sink.last.WithLabelValues(v...).Set(float64(now.UnixMilli()) / 1e3)
	m.sink.binding.WithLabelValues(bindingValues(cfg, inv)...).Set(float64(now.UnixMilli()) / 1e3)
	m.sink.exports.WithLabelValues(v...).Inc()
	m.sink.bytes.WithLabelValues(v...).Add(float64(bytes))
	m.sink.rows.WithLabelValues(v...).Add(float64(rows))
}

// sinkCurrent records that cfg's sink was found holding inv's latest
// snapshot at now, without a write.
func (m *metrics) sinkCurrent(cfg busv1.SinkConfig, inv busv1.NamespacedName, now time.Time) {
	if m != nil {
		m.sink.last.WithLabelValues(sinkValues(cfg)...).Set(float64(now.UnixMilli()) / 1e3)
		m.sink.binding.WithLabelValues(bindingValues(cfg, inv)...).Set(float64(now.UnixMilli()) / 1e3)
	}
}

// forgetBinding deletes the series of inv's binding to the sink ref, whose
// worker was swept (the binding is gone).
func (m *metrics) forgetBinding(inv busv1.NamespacedName, ref busv1.SinkRef) {
	if m != nil {
		m.sink.binding.DeletePartialMatch(prometheus.Labels{"sink_namespace": ref.Namespace, "sink": ref.Name,
			"inventory_namespace": inv.Namespace, "inventory": inv.Name})
	}
}

// sinkFailed records a failed attempt to write to cfg's sink.
func (m *metrics) sinkFailed(cfg busv1.SinkConfig, reason string) {
	if m != nil {
		m.sink.failures.WithLabelValues(append(sinkValues(cfg), reason)...).Inc()
	}
}

// forgetSink deletes every series of the sink ref, deleted or replaced by a
// config with other labels (type or cluster changed).
func (m *metrics) forgetSink(ref busv1.SinkRef) {
	if m == nil {
		return
	}
	match := prometheus.Labels{"sink_namespace": ref.Namespace, "sink": ref.Name}
	m.sink.last.DeletePartialMatch(match)
	m.sink.binding.DeletePartialMatch(match)
	m.sink.exports.DeletePartialMatch(match)
	m.sink.bytes.DeletePartialMatch(match)
	m.sink.rows.DeletePartialMatch(match)
	m.sink.failures.DeletePartialMatch(match)
}
