package busv1

import "time"

// StatusReport is one service's report about one object, for the generation
// it acted on. Control folds the latest report per (service, object, section)
// into the object's conditions and ignores reports for older generations.
// Exactly the sections that apply are set.
type StatusReport struct {
	// Service is the reporting service.
	Service Service `json:"service"`
	// Kind of the object reported on.
	Kind Kind `json:"kind"`
	// Namespace of the object; empty for cluster-scoped kinds.
	Namespace string `json:"namespace"`
	// Name of the object.
	Name string `json:"name"`
	// Generation is the object's metadata.generation the service acted on.
	Generation int64 `json:"generation"`
	// ObservedAt is when the service observed what it reports.
	ObservedAt time.Time `json:"observedAt"`
	// Target is the collector's report on a Target or ClusterTarget.
	Target *TargetStatus `json:"target,omitempty"`
	// Inventory is the aggregator's report on an inventory.
	Inventory *InventoryStatus `json:"inventory,omitempty"`
	// Export is an exporter's report on one binding of an inventory.
	Export *ExportStatus `json:"export,omitempty"`
	// Connection is an exporter's report on a sink's connection.
	Connection *ConnectionStatus `json:"connection,omitempty"`
	// Replay is the aggregator's progress on a KollectReplay.
	Replay *ReplayStatus `json:"replay,omitempty"`
}

// Outcome is the reason and message of a failed (or notable) step; empty on
// success. Messages are one line, name the failing reference and never hold a
// secret.
type Outcome struct {
	// Reason is one of the reasons of kollect.dev/kollect/api/v1alpha1
	// (v1alpha1.Reasons: Forbidden, ExportFailed, ConnectionTestFailed,
	// ...), each documented there with when it is set.
	Reason string `json:"reason,omitempty"`
	// Message is one actionable line.
	Message string `json:"message,omitempty"`
}

// TargetStatus is the collector's view of one Target.
type TargetStatus struct {
	// CollectedCount is the number of rows currently collected.
	CollectedCount int `json:"collectedCount"`
	// ExtractionFailures counts objects whose row was dropped because a
	// required attribute failed to evaluate.
	ExtractionFailures int64 `json:"extractionFailures"`
	// LastExtractionError is the last such failure, naming object and
	// attribute.
	LastExtractionError string `json:"lastExtractionError,omitempty"`
	// MatchedNamespaces are the namespaces currently selected, sorted.
	MatchedNamespaces []string `json:"matchedNamespaces"`
	// Outcome is set when the Target cannot be collected (Forbidden when
	// RBAC denies the watch, ScopeNamespaceDenied, ...).
	Outcome
}

// InventoryStatus is the aggregator's view of one inventory.
type InventoryStatus struct {
	// ItemCount is the current snapshot's item count.
	ItemCount int `json:"itemCount"`
	// Revision is the current snapshot's revision.
	Revision uint64 `json:"revision"`
	// Checksum is the current snapshot's checksum.
	Checksum string `json:"checksum"`
	// NextDue is, per binding, when the next periodic re-export is due.
	NextDue []BindingDue `json:"nextDue"`
	// NamespaceShards are, for a cluster inventory, the item count and
	// checksum of the rows from each source namespace, sorted by namespace;
	// absent for namespaced inventories.
	NamespaceShards []NamespaceShard `json:"namespaceShards,omitempty"`
	// History is what the bus keeps of the inventory's history, as of the
	// aggregator's last trim to its retention; absent until the first.
	History *HistoryStatus `json:"history,omitempty"`
	// Outcome is set when the snapshot cannot be built or published.
	Outcome
}

// HistoryStatus is the history the bus keeps for one inventory after the
// aggregator trimmed it to its retention.
type HistoryStatus struct {
	// Revisions is the number of distinct revisions kept (periodic
	// re-exports and replays repeat a revision and add none).
	Revisions int `json:"revisions"`
	// OldestRevision is the oldest revision kept.
	OldestRevision uint64 `json:"oldestRevision"`
	// OldestTime is when the oldest revision kept was published.
	OldestTime time.Time `json:"oldestTime"`
	// Bytes is what the kept revisions reference in the envelope store
	// (chunks, manifests, envelopes, deltas), each object counted once.
	Bytes int64 `json:"bytes"`
}

// BindingDue is when a binding's next periodic re-export is due.
type BindingDue struct {
	// Sink is the binding's sink.
	Sink SinkRef `json:"sink"`
	// NextDue is when the periodic re-export is due.
	NextDue time.Time `json:"nextDue"`
}

// ExportStatus is an exporter's result for one (inventory, sink) binding.
type ExportStatus struct {
	// Sink is the binding's sink; Sink.BindingName() is the
	// status.sinkExports name.
	Sink SinkRef `json:"sink"`
	// LastExportTime is when the last export succeeded; zero if never.
	LastExportTime time.Time `json:"lastExportTime"`
	// Checksum is the checksum of the last successful export.
	Checksum string `json:"checksum,omitempty"`
	// Revision is the revision of the last successful export.
	Revision uint64 `json:"revision,omitempty"`
	// OK is true when the latest attempt succeeded.
	OK bool `json:"ok"`
	// Permanent is true when the latest failure will not be retried (bad
	// credentials, invalid config); it clears when the sink or inventory
	// changes.
	Permanent bool `json:"permanent,omitempty"`
	// Repaired is set, on the report of a periodic re-export only, when a
	// drift check found that the sink no longer held the snapshot it was
	// last given and the snapshot was written again in full: the drift
	// found ("state row missing", "1998 rows, want 2000"). Control records
	// it as a DriftRepaired event on the inventory.
	Repaired string `json:"repaired,omitempty"`
	// Outcome explains a failed attempt.
	Outcome
}

// ConnectionStatus is an exporter's result of probing a sink.
type ConnectionStatus struct {
	// OK is true when the probe succeeded.
	OK bool `json:"ok"`
	// LatencyMs is the probe's round trip in milliseconds.
	LatencyMs int64 `json:"latencyMs"`
	// Outcome explains a failed probe (ConnectionTestFailed,
	// SecretResolveFailed, ...).
	Outcome
}

// NamespaceShard is the part of a cluster snapshot that comes from one source
// namespace.
type NamespaceShard struct {
	// Namespace of the source objects; empty for cluster-scoped kinds.
	Namespace string `json:"namespace"`
	// ItemCount is the number of rows from the namespace.
	ItemCount int `json:"itemCount"`
	// Checksum is the sha256 hex of the canonical JSON of those rows.
	Checksum string `json:"checksum"`
}
