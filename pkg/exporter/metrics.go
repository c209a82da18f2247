package exporter

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/sink"
)

// Metric names of every exporter family.
const (
	// NameExportDuration is a histogram of successful sink writes, per
	// family, sink type and mode (ModeDelta, ModeFull).
	NameExportDuration = "kollect_exporter_export_duration_seconds"
	// NameExportBytes counts the envelope bytes delivered, per family, sink
	// type and mode.
	NameExportBytes = "kollect_exporter_export_bytes_total"
	// NameExportErrors counts failed export attempts, per family, sink type
	// and reason (ReasonPermanent, ReasonTransient, ReasonDenied).
	NameExportErrors = "kollect_exporter_export_errors_total"
	// NameExportRetries counts retries of a binding after a transient
	// failure, per family and sink type.
	NameExportRetries = "kollect_exporter_export_retries_total"
	// NameQueueLag is the number of snapshot events the family's consumer
	// has not delivered yet (pending plus unacknowledged).
	NameQueueLag = "kollect_exporter_queue_lag_messages"
	// NameSecretRotations counts sinks rebuilt because a Secret they read
	// changed.
	NameSecretRotations = "kollect_exporter_secret_rotations_total" //nolint:gosec // G101: a metric name, not a credential
	// NameBusBytesRead counts object bytes (chunks, manifests, deltas,
	// envelopes) read from the bus's object store; a delta that applies
	// reads none.
	NameBusBytesRead = "kollect_exporter_bus_bytes_read_total"
	// NameChunkCache counts chunk reads by result (hit, miss).
	NameChunkCache = "kollect_exporter_chunk_reads_total"
	// NameHeldMessages is the number of snapshot events this replica keeps
	// unacknowledged while their bindings are written (Config.MaxHeld).
	NameHeldMessages = "kollect_exporter_held_messages"
	// NameDetached counts snapshot events acknowledged on arrival because
	// the replica's or their namespace's held budget was used up; they are
	// written all the same.
	NameDetached = "kollect_exporter_detached_total"
	// NameClaimsLost counts writes cancelled because this replica lost its
	// claim on the binding (not renewed in time, or taken over).
	NameClaimsLost = "kollect_exporter_claims_lost_total"
	// NameDriftChecks counts drift checks of periodic re-exports, per
	// family, sink type and result (DriftInSync, DriftFound, DriftError).
	NameDriftChecks = "kollect_exporter_drift_checks_total"
	// NameDriftRepairs counts full rewrites of a sink that had drifted from
	// the snapshot it was last given, per family and sink type.
	NameDriftRepairs = "kollect_exporter_drift_repairs_total"
)

// Error reasons of NameExportErrors.
const (
	// ReasonPermanent: the sink refused for good (credentials, config).
	ReasonPermanent = "permanent"
	// ReasonTransient: the attempt will be retried.
	ReasonTransient = "transient"
	// ReasonDenied: the endpoint address policy refused the connection.
	ReasonDenied = "denied"
)

// Modes of NameExportDuration and NameExportBytes.
const (
	// ModeDelta: the sink applied the revision's delta (WriteDelta).
	ModeDelta = "delta"
	// ModeFull: the sink was given the whole snapshot (Write).
	ModeFull = "full"
)

// modeOf is the mode in which write delivers snap to s: ModeDelta when it
// calls WriteDelta, else ModeFull.
func modeOf(s sink.Sink, snap sink.Snapshot) string {
	if _, ok := s.(sink.DeltaWriter); ok && snap.Delta != nil {
		return ModeDelta
	}
	return ModeFull
}

// metrics are the runtime's instruments; a nil *metrics records nothing.
type metrics struct {
	family    string
	duration  *prometheus.HistogramVec
	bytes     *prometheus.CounterVec
	errors    *prometheus.CounterVec
	retries   *prometheus.CounterVec
	lag       prometheus.Gauge
	rotations prometheus.Counter
	detached  prometheus.Counter
	lost      prometheus.Counter
	checks    *prometheus.CounterVec
	repairs   *prometheus.CounterVec
	sink      sinkMetrics
}

// newMetrics registers the instruments on reg; nil reg disables them.
func newMetrics(reg prometheus.Registerer, family string) *metrics {
	if reg == nil {
		return nil
	}
	labels := prometheus.Labels{"family": family}
	m := &metrics{family: family,
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: NameExportDuration, ConstLabels: labels,
			Help: "Duration of successful sink writes, by mode (delta or full).", Buckets: prometheus.ExponentialBuckets(0.005, 2, 14)},
			[]string{"type", "mode"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: NameExportBytes, ConstLabels: labels,
			Help: "Envelope bytes delivered to sinks, by mode (delta or full)."}, []string{"type", "mode"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: NameExportErrors, ConstLabels: labels,
			Help: "Failed export attempts by reason."}, []string{"type", "reason"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: NameExportRetries, ConstLabels: labels,
			Help: "Retries after transient export failures."}, []string{"type"}),
		lag: prometheus.NewGauge(prometheus.GaugeOpts{Name: NameQueueLag, ConstLabels: labels,
			Help: "Snapshot events not yet delivered by this family (pending plus unacknowledged)."}),
		rotations: prometheus.NewCounter(prometheus.CounterOpts{Name: NameSecretRotations, ConstLabels: labels,
			Help: "Sinks rebuilt because a Secret they read changed."}),
		detached: prometheus.NewCounter(prometheus.CounterOpts{Name: NameDetached, ConstLabels: labels,
			Help: "Snapshot events acknowledged on arrival because the held budget was used up; written all the same."}),
		lost: prometheus.NewCounter(prometheus.CounterOpts{Name: NameClaimsLost, ConstLabels: labels,
			Help: "Writes cancelled because the replica lost its claim on the binding."}),
		checks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: NameDriftChecks, ConstLabels: labels,
			Help: "Drift checks of periodic re-exports by result."}, []string{"type", "result"}),
		repairs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: NameDriftRepairs, ConstLabels: labels,
			Help: "Sinks written again in full because they had drifted from the snapshot last exported."}, []string{"type"}),
		sink: newSinkMetrics(labels),
	}
	reg.MustRegister(m.duration, m.bytes, m.errors, m.retries, m.lag, m.rotations, m.detached, m.lost, m.checks, m.repairs)
	reg.MustRegister(m.sink.collectors()...)
	return m
}

// registerTracker exposes the number of held deliveries on reg and counts
// detached ones.
func (m *metrics) registerTracker(reg prometheus.Registerer, t *tracker) {
	if m == nil || reg == nil {
		return
	}
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: NameHeldMessages, ConstLabels: prometheus.Labels{"family": m.family},
		Help: "Snapshot events kept unacknowledged while their bindings are written."}, func() float64 { return float64(t.held()) }))
	t.detached = m.detached.Inc
}

func (m *metrics) claimLost() {
	if m != nil {
		m.lost.Inc()
	}
}

// registerLoader exposes the loader's counters on reg.
func registerLoader(reg prometheus.Registerer, family string, l *history.Loader) {
	if reg == nil {
		return
	}
	labels := prometheus.Labels{"family": family}
	count := func(name, help string, v func() int64, extra prometheus.Labels) prometheus.Collector {
		ls := prometheus.Labels{}
		for k, x := range labels {
			ls[k] = x
		}
		for k, x := range extra {
			ls[k] = x
		}
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: ls},
			func() float64 { return float64(v()) })
	}
	reg.MustRegister(
		count(NameBusBytesRead, "Object bytes read from the bus to deliver snapshots (a delta that applies reads none).",
			l.BytesRead.Load, nil),
		count(NameChunkCache, "Snapshot chunk reads by result.", l.ChunkHits.Load, prometheus.Labels{"result": "hit"}),
		count(NameChunkCache, "Snapshot chunk reads by result.", l.ChunkMisses.Load, prometheus.Labels{"result": "miss"}))
}

// exported records one successful write of inv's bytes and rows to cfg's
// sink in mode (modeOf), which took d and ended at now.
func (m *metrics) exported(cfg busv1.SinkConfig, inv busv1.NamespacedName, mode string, d time.Duration, now time.Time, bytes int64, rows int) {
	if m == nil {
		return
	}
	m.duration.WithLabelValues(cfg.Type, mode).Observe(d.Seconds())
	m.bytes.WithLabelValues(cfg.Type, mode).Add(float64(bytes))
	m.sinkExported(cfg, inv, now, bytes, rows)
}

// failed records a failed attempt to write to cfg's sink.
func (m *metrics) failed(cfg busv1.SinkConfig, reason string) {
	if m != nil {
		m.errors.WithLabelValues(cfg.Type, reason).Inc()
		m.sinkFailed(cfg, reason)
	}
}

func (m *metrics) retried(typ string) {
	if m != nil {
		m.retries.WithLabelValues(typ).Inc()
	}
}

func (m *metrics) driftChecked(typ, result string) {
	if m != nil {
		m.checks.WithLabelValues(typ, result).Inc()
	}
}

func (m *metrics) repaired(typ string) {
	if m != nil {
		m.repairs.WithLabelValues(typ).Inc()
	}
}

func (m *metrics) rotated() {
	if m != nil {
		m.rotations.Inc()
	}
}

// watchLag samples the consumer's backlog every interval until ctx ends.
func (m *metrics) watchLag(ctx context.Context, cons jetstream.Consumer, interval time.Duration) {
	if m == nil {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if info, err := cons.Info(ctx); err == nil {
			m.lag.Set(float64(info.NumPending) + float64(info.NumAckPending))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
