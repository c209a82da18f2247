package engine

import "github.com/prometheus/client_golang/prometheus"

// Metric names of what inventories keep on the bus.
const (
	// NameNamespaceBusBytes is what a namespace's inventories keep on the
	// bus as of the last collection: their retained snapshot events and
	// the objects those reference, each object counted once per inventory.
	NameNamespaceBusBytes = "kollect_aggregator_namespace_bus_bytes"
	// NameNamespaceBusQuota is the namespace's bus-bytes quota
	// (--namespace-bus-bytes, tightened by its KollectScope); 0 when none.
	NameNamespaceBusQuota = "kollect_aggregator_namespace_bus_quota_bytes"
	// NameNamespaceRevisions is the distinct revisions a namespace's
	// inventories retain together.
	NameNamespaceRevisions = "kollect_aggregator_namespace_history_revisions"
	// NameNamespaceRevisionsQuota is the namespace's retained-revisions
	// quota (--namespace-history-revisions, tightened by its Scope).
	NameNamespaceRevisionsQuota = "kollect_aggregator_namespace_history_revisions_quota"
	// NamePeriodicDropped counts periodic events deleted because a later
	// periodic event to the same binding superseded them.
	NamePeriodicDropped = "kollect_aggregator_periodic_events_dropped_total"
	// NameHistoryPurged counts the histories of deleted inventories purged
	// from the bus once --history-purge-grace passed.
	NameHistoryPurged = "kollect_aggregator_history_purged_total"
	// LabelNamespace is a namespace of inventories (not "namespace", which
	// Prometheus sets to the scraped pod's).
	LabelNamespace = "inventory_namespace"
)

// usageMetrics are the instruments of bus usage.
type usageMetrics struct {
	nsBytes, nsBytesQuota, nsRevs, nsRevsQuota *prometheus.GaugeVec
	periodicDropped, purged                    prometheus.Counter
}

func newUsageMetrics() usageMetrics {
	gauge := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, []string{LabelNamespace})
	}
	return usageMetrics{
		nsBytes: gauge(NameNamespaceBusBytes,
			"Bytes a namespace's inventories keep on the bus: retained snapshot events and the objects they reference."),
		nsBytesQuota: gauge(NameNamespaceBusQuota, "The namespace's bus-bytes quota; 0 when none."),
		nsRevs:       gauge(NameNamespaceRevisions, "Distinct revisions a namespace's inventories retain together."),
		nsRevsQuota:  gauge(NameNamespaceRevisionsQuota, "The namespace's retained-revisions quota; 0 when none."),
		periodicDropped: prometheus.NewCounter(prometheus.CounterOpts{Name: NamePeriodicDropped,
			Help: "Periodic snapshot events deleted because a later one to the same binding superseded them."}),
		purged: prometheus.NewCounter(prometheus.CounterOpts{Name: NameHistoryPurged,
			Help: "Histories of deleted inventories purged from the bus after the purge grace."}),
	}
}

func (u usageMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{u.nsBytes, u.nsBytesQuota, u.nsRevs, u.nsRevsQuota, u.periodicDropped, u.purged}
}

// periodicDropped counts a superseded periodic event deleted.
func (m *Metrics) periodicDropped() {
	if m != nil {
		m.usage.periodicDropped.Inc()
	}
}

// historyPurged counts a deleted inventory's history purged.
func (m *Metrics) historyPurged() {
	if m != nil {
		m.usage.purged.Inc()
	}
}

// namespaceUsage sets the usage series of every namespace in u, drops
// those of namespaces in prev (the engine's last report) no longer in u,
// and returns the namespaces reported now. Other engines' (shards')
// namespaces are left alone.
func (m *Metrics) namespaceUsage(prev map[string]struct{}, u map[string]nsUsage) map[string]struct{} {
	now := make(map[string]struct{}, len(u))
	if m == nil {
		return now
	}
	for ns := range prev {
		if _, ok := u[ns]; !ok {
			for _, g := range []*prometheus.GaugeVec{m.usage.nsBytes, m.usage.nsBytesQuota, m.usage.nsRevs, m.usage.nsRevsQuota} {
				g.DeleteLabelValues(ns)
			}
		}
	}
	for ns, x := range u {
		now[ns] = struct{}{}
		m.usage.nsBytes.WithLabelValues(ns).Set(float64(x.bytes))
		m.usage.nsBytesQuota.WithLabelValues(ns).Set(float64(x.quota.BusBytes))
		m.usage.nsRevs.WithLabelValues(ns).Set(float64(x.revisions))
		m.usage.nsRevsQuota.WithLabelValues(ns).Set(float64(x.quota.HistoryRevisions))
	}
	return now
}
