package busv1

import "time"

// ExportState is the last delivery of one inventory to one sink, kept in the
// export-state KV bucket so that a restarted or failed-over exporter does not
// re-export what the sink already holds. Only the sink's family exporter
// writes it.
type ExportState struct {
	// Inventory names the inventory.
	Inventory NamespacedName `json:"inventory"`
	// Sink is the binding's sink.
	Sink SinkRef `json:"sink"`
	// Checksum is the checksum last delivered.
	Checksum string `json:"checksum"`
	// Revision is the revision last delivered.
	Revision uint64 `json:"revision"`
	// ExportedAt is when it was delivered.
	ExportedAt time.Time `json:"exportedAt"`
	// Replayed is set when a replay (SnapshotEvent.Replay) wrote an older
	// snapshot to the sink after Revision: the sink holds Replayed, not
	// Revision. Revision and Checksum never move backwards; the next
	// non-replay write clears Replayed.
	Replayed *ReplayedExport `json:"replayed,omitempty"`
	// Claim is set while one exporter replica writes the binding, so that
	// another replica holding an event of the same binding waits instead of
	// writing concurrently. A claim past its Expires is void: its replica
	// stopped without releasing it.
	Claim *ExportClaim `json:"claim,omitempty"`
	// Hold is set by the aggregator while a backfill (KollectReplay) fills
	// the binding: exporters defer the binding's regular events, and
	// replays of another replay, until the hold is cleared or expires, and
	// write the replay events of the hold's UID. Every writer of the state
	// keeps the hold it finds.
	Hold *ExportHold `json:"hold,omitempty"`
}

// ExportHold is a running backfill's expiring hold on a binding's regular
// exports.
type ExportHold struct {
	// Replay names the KollectReplay.
	Replay NamespacedName `json:"replay"`
	// UID is the KollectReplay's uid, carried by its replay events
	// (Replay.UID).
	UID string `json:"uid"`
	// Expires is when the hold lapses unless renewed; the aggregator renews
	// it while the backfill runs, so a hold whose aggregator died lapses by
	// itself.
	Expires time.Time `json:"expires"`
}

// ExportClaim is one replica's exclusive, expiring hold on a binding.
type ExportClaim struct {
	// Owner identifies the replica (unique per process start).
	Owner string `json:"owner"`
	// Revision is the revision being written.
	Revision uint64 `json:"revision"`
	// Expires is when the claim lapses unless renewed; the owner renews it
	// while the write runs.
	Expires time.Time `json:"expires"`
}

// ReplayedExport is the replayed snapshot a sink holds.
type ReplayedExport struct {
	// Revision is the replayed revision.
	Revision uint64 `json:"revision"`
	// Checksum is the replayed checksum.
	Checksum string `json:"checksum"`
	// ExportedAt is when the replay was written.
	ExportedAt time.Time `json:"exportedAt"`
}

// ConnectionTestRequest asks the exporter of a family to probe one sink, on
// behalf of a sink's connectionTest, its test-connection annotation or a
// KollectConnectionTest.
type ConnectionTestRequest struct {
	// RequestID correlates the reply; unique per request.
	RequestID string `json:"requestId"`
	// Sink is the sink to probe.
	Sink SinkRef `json:"sink"`
	// SinkGeneration is the sink generation to probe; an exporter that has
	// not yet seen that SinkConfig replies not OK and not permanent, so that
	// control asks again.
	SinkGeneration int64 `json:"sinkGeneration"`
}

// ConnectionTestReply is the exporter's answer to a ConnectionTestRequest.
type ConnectionTestReply struct {
	// RequestID is the request's id.
	RequestID string `json:"requestId"`
	// OK is true when the probe succeeded.
	OK bool `json:"ok"`
	// LatencyMs is the probe's round trip in milliseconds.
	LatencyMs int64 `json:"latencyMs"`
	// Permanent is true when a retry cannot succeed without a change (bad
	// credentials, invalid config).
	Permanent bool `json:"permanent,omitempty"`
	// Outcome explains a failed probe.
	Outcome
}

// DeadLetter records a bus message that failed permanently and was
// terminated, so that it never blocks later messages.
type DeadLetter struct {
	// Subject is the original message's subject.
	Subject string `json:"subject"`
	// StreamSequence is the original message's stream sequence, zero for a
	// core NATS message.
	StreamSequence uint64 `json:"streamSequence,omitempty"`
	// Headers are the original message's headers (a nats.Header converts
	// directly).
	Headers map[string][]string `json:"headers,omitempty"`
	// Sink is the binding whose delivery failed, when the failure is
	// specific to one sink.
	Sink *SinkRef `json:"sink,omitempty"`
	// Revision is the snapshot revision that failed, when known.
	Revision uint64 `json:"revision,omitempty"`
	// Outcome is why the message failed.
	Outcome
	// Time is when the message was terminated.
	Time time.Time `json:"time"`
}
