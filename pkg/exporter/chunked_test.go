package exporter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/snapshot"
)

// chunked publishes events as the aggregator does: the snapshot as a
// manifest of chunks, the change from the previous event as a delta
// (inline, or an object), and reads through a Loader whose counters the
// tests check.
type chunked struct {
	e      *env
	w      *history.Writer
	l      *history.Loader
	sinks  []string
	prev   *busv1.SnapshotEvent
	rows   []busv1.Row // prev's rows, canonical order
	object bool        // next delta as an object (DeltaRef)
}

func newChunked(t testing.TB, e *env, sinks ...string) *chunked {
	w, err := history.NewWriter(context.Background(), e.n.JS)
	if err != nil {
		t.Fatal(err)
	}
	return &chunked{e: e, w: w, l: history.NewLoader(e.n.JS, 0), sinks: sinks}
}

// publish publishes revision rev holding rows, with the delta from the
// previous event unless fresh; it returns the event.
func (c *chunked) publish(t testing.TB, rev uint64, rows []busv1.Row, fresh bool) busv1.SnapshotEvent {
	t.Helper()
	ev := c.event(t, rev, rows, fresh)
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.e.n.JS.Publish(context.Background(), bus.SnapshotSubject(inv), b); err != nil {
		t.Fatal(err)
	}
	return ev
}

// event builds revision rev holding rows (sorted in place).
func (c *chunked) event(t testing.TB, rev uint64, rows []busv1.Row, fresh bool) busv1.SnapshotEvent {
	t.Helper()
	ctx := context.Background()
	rows = slices.Clone(rows)
	ref, m, _, err := c.w.WriteManifest(ctx, inv, history.RowsSource(rows))
	if err != nil {
		t.Fatal(err)
	}
	ev := busv1.SnapshotEvent{Inventory: inv, Revision: rev, Generation: 1, Checksum: m.Checksum, ItemCount: m.ItemCount,
		CreatedAt: time.Now(), Reason: busv1.ReasonChange, ManifestRef: ref}
	for _, s := range c.sinks {
		ev.Bindings = append(ev.Bindings, binding(s))
	}
	if c.prev != nil && !fresh {
		d := diffRows(t, c.prev, c.rows, rows)
		if c.object {
			if ev.DeltaRef, _, err = c.w.PutJSON(ctx, bus.DeltaObjectName, d); err != nil {
				t.Fatal(err)
			}
		} else {
			ev.Delta = d
		}
	}
	c.prev, c.rows = &ev, rows
	return ev
}

// diffRows is the delta from base (its rows baseRows) to rows, both in
// canonical order: what the aggregator computes.
func diffRows(t testing.TB, base *busv1.SnapshotEvent, baseRows, rows []busv1.Row) *busv1.Delta {
	t.Helper()
	old := map[busv1.RowKey][]byte{}
	for i := range baseRows {
		old[baseRows[i].Key()] = canonical(t, &baseRows[i])
	}
	d := &busv1.Delta{BaseRevision: base.Revision, BaseChecksum: base.Checksum, Upserts: []busv1.Row{}, Deletes: []busv1.RowKey{}}
	present := map[busv1.RowKey]bool{}
	for i := range rows {
		k := rows[i].Key()
		present[k] = true
		if b, ok := old[k]; !ok || !bytes.Equal(b, canonical(t, &rows[i])) {
			d.Upserts = append(d.Upserts, rows[i])
		}
	}
	for _, r := range baseRows {
		if !present[r.Key()] {
			d.Deletes = append(d.Deletes, r.Key())
		}
	}
	return d
}

func canonical(t testing.TB, r *busv1.Row) []byte {
	b, err := snapshot.Canonical(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// manyRows returns n rows r-000000.. with attribute v.
func manyRows(n int, v string) []busv1.Row {
	out := make([]busv1.Row, n)
	for i := range out {
		out[i] = vrow(fmt.Sprintf("r-%06d", i), v)
	}
	return out
}

// vrow is the row named uid with attribute v.
func vrow(uid, v string) busv1.Row {
	r := row(uid)
	r.Attributes = map[string]any{"v": v}
	return r
}

// set returns rows with r replacing the row of the same key, or added.
func set(rs []busv1.Row, r busv1.Row) []busv1.Row {
	out := slices.Clone(rs)
	for i := range out {
		if out[i].Key() == r.Key() {
			out[i] = r
			return out
		}
	}
	return append(out, r)
}

// without returns rows without the row of uid.
func without(rs []busv1.Row, uid string) []busv1.Row {
	return slices.DeleteFunc(slices.Clone(rs), func(r busv1.Row) bool { return r.UID == uid })
}
