package sink

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

// RowStreamer is implemented by sinks whose full write consumes the
// snapshot's rows as a stream (Snapshot.Rows) instead of Envelope.Items:
// the runtime then hands Write, like WriteDelta, a header-only envelope
// (Loaded false) whose rows are read from the bus chunk by chunk while the
// sink writes them, so that a full write's memory does not grow with the
// inventory. StreamsRows returns false to receive full envelopes anyway.
type RowStreamer interface {
	StreamsRows() bool
}

// Rows yields the canonical JSON of every row of the snapshot, in canonical
// order (docs/contract.md): from Envelope.Items when loaded, else from
// Stream (read from the bus one chunk at a time), else from the envelope
// Load reads. An error ends the sequence: it is yielded with a nil row. A
// row's bytes must not be modified; they may be kept.
func (s Snapshot) Rows(ctx context.Context) iter.Seq2[json.RawMessage, error] {
	switch {
	case s.Load == nil:
		return canonicalRows(s.Envelope)
	case s.Stream != nil:
		return s.Stream(ctx)
	}
	return func(yield func(json.RawMessage, error) bool) {
		env, err := s.Full(ctx)
		if err != nil {
			yield(nil, err)
			return
		}
		canonicalRows(env)(yield)
	}
}

// canonicalRows yields the canonical JSON of env's items.
func canonicalRows(env busv1.Envelope) iter.Seq2[json.RawMessage, error] {
	return func(yield func(json.RawMessage, error) bool) {
		for i := range env.Items {
			raw, err := snapshot.Canonical(&env.Items[i])
			if err != nil {
				err = Permanent(fmt.Errorf("encode row %d of %s: %w", i, env.Inventory, err))
			}
			if !yield(raw, err) || err != nil {
				return
			}
		}
	}
}
