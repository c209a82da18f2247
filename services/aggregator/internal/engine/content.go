package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/aggregator/internal/index"
	"kollect.dev/kollect/services/aggregator/internal/publish"
)

// body is what periodic events of the last revision repeat.
type body = publish.Body

// content is an event's body: the view's rows inline when they fit a
// message, else its manifest; and the delta since the last publish.
func (e *Engine) content(st *invState, ev *busv1.SnapshotEvent) publish.Content {
	v := st.view
	var c publish.Content
	if e.inline(st) {
		var rows [][]byte
		v.Each(func(r *index.Row) bool { rows = append(rows, r.Raw); return true })
		c.Envelope = spliceEnvelope(ev, rows)
	}
	c.Manifest = func(ctx context.Context) (*busv1.ObjectRef, error) { return e.storeManifest(ctx, st) }
	if v.HasBase() && st.last.revision > 0 {
		ups, dels := v.Changes()
		if !st.bulk.wholeWrite(len(ups)+len(dels), v.Len()) {
			c.Delta = spliceDelta(st.last.revision, st.last.checksum, ups, dels)
		}
	}
	return c
}

// inline reports whether st's snapshot fits an event, its envelope inline.
func (e *Engine) inline(st *invState) bool {
	return st.view.Bytes()+int64(st.view.Len())+512 <= int64(e.pub.Limit())
}

// storeManifest stores the view's chunks not yet stored and its manifest:
// paged when the chunks make more than one page, so a revision writes the
// pages it changed and a small root (history.Writer.PutManifest).
func (e *Engine) storeManifest(ctx context.Context, st *invState) (*busv1.ObjectRef, error) {
	w := e.pub.Writer()
	owner := bus.OwnerOf(st.name) // its shard collects them (gc.go)
	chunkName := owner.Names(bus.ChunkObjectName)
	var written int64
	err := st.view.Store(ctx, func(ctx context.Context, c busv1.Chunk, data []byte) error {
		_, n, err := w.Put(ctx, chunkName(c.Digest), data)
		written += n
		return err
	})
	if err != nil {
		return nil, err
	}
	chunks, ends := st.view.Layout()
	m := busv1.Manifest{Inventory: st.name, Checksum: st.view.Checksum(), ItemCount: st.view.Len(),
		Bytes: st.view.Bytes(), Chunks: chunks}
	ref, n, err := w.PutManifest(ctx, owner, &m, func(i int) bool { return ends[i] })
	e.m.stored(written + n)
	e.written += written + n
	return ref, err
}

// spliceEnvelope returns the envelope JSON of ev with rows, the canonical
// JSON of its items in order, spliced in verbatim.
func spliceEnvelope(ev *busv1.SnapshotEvent, rows [][]byte) []byte {
	head, _ := json.Marshal(busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Checksum: ev.Checksum,
		PreviousChecksum: ev.PreviousChecksum, Revision: ev.Revision, Generation: ev.Generation, Inventory: ev.Inventory, ItemCount: len(rows)})
	// head ends with `"items":[]}`: replace the empty list.
	head = bytes.TrimSuffix(head, []byte(`[]}`))
	n := len(head) + 2
	for _, r := range rows {
		n += len(r) + 1
	}
	out := make([]byte, 0, n)
	out = append(append(out, head...), '[')
	for i, r := range rows {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, r...)
	}
	return append(out, ']', '}')
}

// spliceDelta returns the JSON of a busv1.Delta with the upserted rows'
// canonical JSON spliced in verbatim.
func spliceDelta(baseRev uint64, baseSum string, ups, dels []*index.Row) []byte {
	sum, _ := json.Marshal(baseSum)
	out := []byte(`{"baseRevision":` + strconv.FormatUint(baseRev, 10) + `,"baseChecksum":`)
	out = append(append(out, sum...), `,"upserts":[`...)
	for i, r := range ups {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, r.Raw...)
	}
	out = append(out, `],"deletes":[`...)
	for i, r := range dels {
		if i > 0 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(r.Key)
		out = append(out, k...)
	}
	return append(out, ']', '}')
}

// bodyOf is the body of an event read back from the bus.
func bodyOf(ev *busv1.SnapshotEvent) body {
	b := body{ManifestRef: ev.ManifestRef, EnvelopeRef: ev.EnvelopeRef}
	if ev.Envelope != nil {
		b.Envelope, _ = json.Marshal(ev.Envelope)
	}
	return b
}
