// Package sink declares what every exporter backend implements: a Sink that
// writes one inventory's snapshot to an external system and is closed when its
// configuration changes, the optional Checker for connection tests and the
// optional DeltaWriter for backends that apply only what changed, the
// Snapshot value a sink receives, and the classification of sink errors as
// permanent (no retry) or transient (retry with backoff).
//
// A DeltaWriter receives the delta's rows, not the snapshot's: in
// WriteDelta, Snapshot.Envelope.Items is nil unless loaded
// (Snapshot.Loaded), so that applying a one-row change reads one row from
// the bus. A sink whose own state makes it fall back from the delta to a
// full write loads the snapshot with Snapshot.WithFull first; only then are
// Items set. Envelope.ItemCount is the snapshot's row count in every case.
//
// A RowStreamer receives header-only snapshots in Write too: it reads the
// rows with Snapshot.Rows, streamed from the bus a chunk at a time, so that
// a full write's memory does not grow with the inventory.
//
// It does not own the exporter runtime (pkg/exporter: consumers, ordering,
// retries, export state, status) nor any backend: backends live with their
// family's exporter service. Every backend passes its family's conformance
// suite, sinktest.Run; memory is an in-memory sink that passes it.
package sink
