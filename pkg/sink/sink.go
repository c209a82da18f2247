package sink

import (
	"context"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Sink writes snapshots of inventories to one configured external system.
// The exporter runtime never calls Write concurrently for one inventory, but
// may for different inventories bound to the same sink.
//
// Write makes the sink's projection of s.Envelope.Inventory (for
// s.Envelope.Cluster) equal to s: writing a snapshot the sink already holds
// changes nothing, and a snapshot older than the one the sink holds (lower
// revision) is ignored without error. Errors wrapped with Permanent are not
// retried; any other error is retried with backoff. A cancelled context stops
// the write and returns the context's error.
type Sink interface {
	Write(ctx context.Context, s Snapshot) error
	Close(ctx context.Context) error
}

// Checker is implemented by sinks that can probe their connection and
// credentials without writing, for connection tests.
type Checker interface {
	Check(ctx context.Context) error
}

// DeltaWriter is implemented by sinks that can apply a delta. The runtime
// calls WriteDelta instead of Write when s.Delta is set, that is when the
// sink's last delivered snapshot is the delta's base; s.Envelope still holds
// the full snapshot.
type DeltaWriter interface {
	WriteDelta(ctx context.Context, s Snapshot) error
}

// Snapshot is what a sink receives for one delivery.
type Snapshot struct {
	// Envelope is the full snapshot, stamped with the sink's cluster and the
	// export time.
	Envelope busv1.Envelope
	// Delta is the change from the snapshot this sink last received, set
	// only when the sink is known to hold the delta's base revision.
	Delta *busv1.Delta
	// Deleted is true when the inventory was deleted with deletionPolicy
	// Delete: the sink removes the inventory's data (event sinks send the
	// final, empty, Envelope).
	Deleted bool
	// Replay is true when the snapshot is a historical revision re-delivered
	// on request (kollect replay): the sink writes it even when it holds a
	// newer revision, instead of ignoring it as older.
	Replay bool
	// MaxExportBytes is the binding's largest single message or file part
	// (inventory spec.maxExportBytes or the binding override); zero means
	// the sink's own limit. Sinks that send parts split the envelope so
	// that no part exceeds it, and fail permanently on a single row that
	// cannot fit: nothing is skipped silently.
	MaxExportBytes int64
}
