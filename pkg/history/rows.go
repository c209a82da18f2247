package history

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/snapshot"
)

// Rows yields the canonical JSON of every row of ev's snapshot, in
// canonical order, one chunk at a time: a reader that streams a revision
// (an exporter's full write) holds one chunk's rows, never the whole
// snapshot. An error ends the sequence: it is yielded with a nil row, and
// stopping early (break) stops reading.
//
// The chunks of a manifest are read through the chunk cache but not put in
// it: a full write of a large inventory would otherwise evict what the
// deltas of every inventory reuse, and gain nothing from it (no chunk of a
// revision is read twice while it streams). Inline and legacy envelopes are
// canonicalised row by row.
func (l *Loader) Rows(ctx context.Context, ev *busv1.SnapshotEvent) iter.Seq2[json.RawMessage, error] {
	return func(yield func(json.RawMessage, error) bool) {
		if ev.ManifestRef == nil {
			l.envelopeRows(ctx, ev, yield)
			return
		}
		m, err := l.Manifest(ctx, ev)
		if err != nil {
			yield(nil, err)
			return
		}
		for _, c := range m.Chunks {
			rows, err := l.streamChunkRows(ctx, ev.ManifestRef, c)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, r := range rows {
				if !yield(r, nil) {
					return
				}
			}
		}
	}
}

// envelopeRows yields the rows of an inline or legacy envelope.
func (l *Loader) envelopeRows(ctx context.Context, ev *busv1.SnapshotEvent, yield func(json.RawMessage, error) bool) {
	env, err := l.Envelope(ctx, ev)
	if err != nil {
		yield(nil, err)
		return
	}
	for i := range env.Items {
		raw, err := snapshot.Canonical(&env.Items[i])
		if !yield(raw, err) || err != nil {
			return
		}
	}
}

// streamChunkRows returns the rows of chunk c as ChunkRows does, reading it
// from the cache when it is there but not adding it.
func (l *Loader) streamChunkRows(ctx context.Context, manifest *busv1.ObjectRef, c busv1.Chunk) ([]json.RawMessage, error) {
	b, ok := l.cache.get(c.Digest)
	if ok {
		l.ChunkHits.Add(1)
	} else {
		l.ChunkMisses.Add(1)
		var err error
		if b, err = l.getAddressed(ctx, manifest.Bucket, bus.ChunkObjectNameIn(manifest.Name, c.Digest), c.Digest); err != nil {
			return nil, err
		}
	}
	rows := make([]json.RawMessage, 0, c.Rows)
	if err := decodeChunk(b, &rows); err != nil {
		return nil, fmt.Errorf("decode chunk %s: %w", c.Digest, err)
	}
	if len(rows) != c.Rows {
		return nil, fmt.Errorf("chunk %s holds %d rows, its manifest says %d", c.Digest, len(rows), c.Rows)
	}
	return rows, nil
}
