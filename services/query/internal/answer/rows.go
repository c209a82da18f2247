package answer

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/snapshot"
)

// RowsPage returns rows [offset, offset+size) of ev's snapshot in canonical
// order. Of a snapshot stored as chunks it reads only the chunks that hold
// those rows; an inline envelope is one message, read whole.
func (r *Reader) RowsPage(ctx context.Context, ev *busv1.SnapshotEvent, offset, size int) ([]busv1.Row, error) {
	out := []busv1.Row{}
	if ev.ManifestRef == nil {
		rows, err := r.inlineRows(ctx, ev)
		if err != nil {
			return nil, err
		}
		offset = min(offset, len(rows))
		return append(out, rows[offset:min(offset+size, len(rows))]...), nil
	}
	m, err := r.loader.Manifest(ctx, ev)
	if err != nil {
		return nil, fmt.Errorf("read rows of %s revision %d: %w", ev.Inventory, ev.Revision, err)
	}
	start := 0 // index of the chunk's first row
	for _, c := range m.Chunks {
		if len(out) == size {
			break
		}
		if start+c.Rows <= offset {
			start += c.Rows
			continue
		}
		raws, err := r.loader.ChunkRows(ctx, ev.ManifestRef, c)
		if err != nil {
			return nil, fmt.Errorf("read rows of %s revision %d: %w", ev.Inventory, ev.Revision, err)
		}
		for j := max(offset-start, 0); j < len(raws) && len(out) < size; j++ {
			var row busv1.Row
			if err := json.Unmarshal(raws[j], &row); err != nil {
				return nil, fmt.Errorf("decode a row of chunk %s: %w", c.Digest, err)
			}
			out = append(out, row)
		}
		start += c.Rows
	}
	return out, nil
}

// inlineRows returns the rows of an event without a manifest (an inline
// envelope, or a legacy envelope object) in canonical order.
func (r *Reader) inlineRows(ctx context.Context, ev *busv1.SnapshotEvent) ([]busv1.Row, error) {
	env, err := r.loader.Envelope(ctx, ev)
	if err != nil {
		return nil, fmt.Errorf("read rows of %s revision %d: %w", ev.Inventory, ev.Revision, err)
	}
	rows := env.Items
	if !slices.IsSortedFunc(rows, busv1.CompareRows) {
		rows = slices.Clone(rows)
		snapshot.Sort(rows)
	}
	return rows, nil
}

// head is what a walk over a revision's rows decodes of every row: its
// place in canonical order and what an Object matches. The rest is decoded
// only for the rows an answer shows.
type head struct {
	TargetNamespace string `json:"targetNamespace"`
	TargetName      string `json:"targetName"`
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	UID             string `json:"uid"`
	Group           string `json:"group"`
	Kind            string `json:"kind"`

	// raw is the row's canonical JSON.
	raw json.RawMessage
	// row is the whole row when it is already decoded (inline envelopes).
	row *busv1.Row
}

// key is the row's identity.
func (h *head) key() busv1.RowKey {
	return busv1.RowKey{TargetNamespace: h.TargetNamespace, TargetName: h.TargetName, UID: h.UID, ClusterTarget: h.TargetNamespace == ""}
}

// compareHeads orders rows as busv1.CompareRows does.
func compareHeads(a, b *head) int {
	return cmp.Or(cmp.Compare(a.TargetNamespace, b.TargetNamespace), cmp.Compare(a.TargetName, b.TargetName),
		cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.UID, b.UID))
}

// decode returns the whole row.
func (h *head) decode() (*busv1.Row, error) {
	if h.row != nil {
		return h.row, nil
	}
	var row busv1.Row
	if err := json.Unmarshal(h.raw, &row); err != nil {
		return nil, fmt.Errorf("decode row %s/%s/%s: %w", h.TargetNamespace, h.TargetName, h.UID, err)
	}
	return &row, nil
}

// walker walks the rows of one revision in canonical order, holding one
// chunk's rows at a time.
type walker struct {
	l        *history.Loader
	manifest *busv1.ObjectRef
	chunks   []busv1.Chunk // the manifest's; nil for an inline envelope
	ci       int           // the chunk being read
	raws     []json.RawMessage
	items    []busv1.Row // an inline envelope's rows
	i        int         // the next row of raws or items
	cur      head
	ok       bool // cur is the row at i
}

// newWalker returns a walker over ev's rows.
func (r *Reader) newWalker(ctx context.Context, ev *busv1.SnapshotEvent) (*walker, error) {
	w := &walker{l: r.loader}
	if ev.ManifestRef == nil {
		rows, err := r.inlineRows(ctx, ev)
		w.items = rows
		return w, err
	}
	m, err := r.loader.Manifest(ctx, ev)
	if err != nil {
		return nil, fmt.Errorf("read rows of %s revision %d: %w", ev.Inventory, ev.Revision, err)
	}
	w.manifest, w.chunks = ev.ManifestRef, m.Chunks
	return w, nil
}

// chunkStart returns the chunk the walker is at the start of, before
// reading it; false inside a chunk, at the end, or on an inline envelope.
func (w *walker) chunkStart() (busv1.Chunk, bool) {
	if w.raws != nil || w.ci >= len(w.chunks) {
		return busv1.Chunk{}, false
	}
	return w.chunks[w.ci], true
}

// skipChunk passes over the chunk chunkStart returned without reading it.
func (w *walker) skipChunk() { w.ci++ }

// peek returns the current row; false at the end.
func (w *walker) peek(ctx context.Context) (*head, bool, error) {
	if w.ok {
		return &w.cur, true, nil
	}
	if w.chunks == nil {
		if w.i >= len(w.items) {
			return nil, false, nil
		}
		row := &w.items[w.i]
		raw, err := snapshot.Canonical(row)
		if err != nil {
			return nil, false, err
		}
		w.cur = head{TargetNamespace: row.TargetNamespace, TargetName: row.TargetName, Namespace: row.Namespace, Name: row.Name,
			UID: row.UID, Group: row.Group, Kind: row.Kind, raw: raw, row: row}
		w.ok = true
		return &w.cur, true, nil
	}
	for w.raws == nil || w.i >= len(w.raws) {
		if w.raws != nil {
			w.ci, w.raws, w.i = w.ci+1, nil, 0
		}
		if w.ci >= len(w.chunks) {
			return nil, false, nil
		}
		raws, err := w.l.ChunkRows(ctx, w.manifest, w.chunks[w.ci])
		if err != nil {
			return nil, false, err
		}
		w.raws = raws
	}
	w.cur = head{raw: w.raws[w.i]}
	if err := json.Unmarshal(w.cur.raw, &w.cur); err != nil {
		return nil, false, fmt.Errorf("decode a row of chunk %s: %w", w.chunks[w.ci].Digest, err)
	}
	w.ok = true
	return &w.cur, true, nil
}

// next moves past the current row.
func (w *walker) next() {
	w.i++
	w.ok = false
	if w.raws != nil && w.i >= len(w.raws) { // the chunk is done: the next starts
		w.ci, w.raws, w.i = w.ci+1, nil, 0
	}
}
