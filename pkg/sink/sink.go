package sink

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

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
// binding's export state is the delta's base. s.Envelope then holds the
// header only: Checksum, Revision, Generation, Inventory, ItemCount, Cluster
// and ExportedAt are set, Items is nil and s.Loaded() is false. A sink whose
// own state shows that the delta does not apply (it holds another revision)
// writes the full snapshot instead, from s.WithFull. The delta may compose
// several consecutive events (see busv1.Delta): an upsert of a row already
// held, or a delete of a row not held, is then normal.
type DeltaWriter interface {
	WriteDelta(ctx context.Context, s Snapshot) error
}

// Snapshot is what a sink receives for one delivery.
type Snapshot struct {
	// Envelope is the snapshot, stamped with the sink's cluster and the
	// export time. In Write it is full, except for a RowStreamer, which
	// reads the rows with Rows; in WriteDelta its Items are nil unless
	// loaded (see Loaded, Full, Rows): ItemCount is the snapshot's row
	// count either way.
	Envelope busv1.Envelope
	// Delta is the change from the snapshot this sink last received, set
	// only when the sink is known to hold the delta's base revision.
	Delta *busv1.Delta
	// Load returns the full, stamped envelope when Envelope holds only the
	// header; nil when Envelope is full. Sinks call Full or WithFull rather
	// than Load.
	Load func(ctx context.Context) (busv1.Envelope, error)
	// Stream, set with Load, yields the snapshot's rows from the bus one
	// chunk at a time (see Rows and RowStreamer) without loading the whole
	// envelope. Sinks call Rows rather than Stream.
	Stream func(ctx context.Context) iter.Seq2[json.RawMessage, error]
	// Deleted is true when the inventory was deleted with deletionPolicy
	// Delete: the sink removes the inventory's data (event sinks send the
	// final, empty, Envelope).
	Deleted bool
	// Replay is true when the snapshot is a historical revision re-delivered
	// on request (kollect replay): the sink writes it even when it holds a
	// newer revision, instead of ignoring it as older.
	Replay bool
	// BackfillStart is set on the first revision of a backfill (a Replay
	// snapshot): a sink that keeps history discards the history it holds
	// from this revision on, then writes this revision as a forward write,
	// so that the backfill's following revisions, newer each, rebuild the
	// history in order. Sinks without history ignore it.
	BackfillStart bool
	// Repair is true when a drift check (DriftChecker) found that the sink
	// no longer holds the snapshot it last wrote: the sink rewrites the whole
	// snapshot, and its own state, even though that state names this
	// revision and checksum. Repair snapshots are always full.
	Repair bool
	// MaxExportBytes is the binding's largest single message or file part
	// (inventory spec.maxExportBytes or the binding override); zero means
	// the sink's own limit. Sinks that send parts split the envelope so
	// that no part exceeds it, and fail permanently on a single row that
	// cannot fit: nothing is skipped silently.
	MaxExportBytes int64
}

// Loaded reports whether s.Envelope holds the snapshot's items.
func (s Snapshot) Loaded() bool { return s.Load == nil }

// Full returns the full envelope: s.Envelope when loaded, else the one Load
// reads (from the bus, verified, possibly large).
func (s Snapshot) Full(ctx context.Context) (busv1.Envelope, error) {
	if s.Load == nil {
		return s.Envelope, nil
	}
	env, err := s.Load(ctx)
	if err != nil {
		return busv1.Envelope{}, fmt.Errorf("load the snapshot of %s revision %d: %w", s.Envelope.Inventory, s.Envelope.Revision, err)
	}
	return env, nil
}

// WithFull returns s with its full envelope loaded (Load cleared), for a
// DeltaWriter that writes the whole snapshot instead of the delta. Delta is
// kept; Write ignores it.
func (s Snapshot) WithFull(ctx context.Context) (Snapshot, error) {
	env, err := s.Full(ctx)
	if err != nil {
		return s, err
	}
	s.Envelope, s.Load = env, nil
	return s, nil
}
