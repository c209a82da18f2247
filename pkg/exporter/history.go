package exporter

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/snapshot"
)

// deltaNeeder is implemented by a sink.DeltaWriter whose full write cannot
// remove rows it does not remember having sent: the Kafka sink in perRow
// mode, whose tombstones come from a delta or from its memory of the rows
// it sent, which a restart loses. When no chained delta moves such a
// binding from its export state to the event, the runtime rebuilds the
// delta from the inventory's snapshot history (historyDelta) instead of
// handing it the whole snapshot. Other sinks diff a full write against
// what they hold themselves, so a full write is as correct and the history
// is not read for them.
type deltaNeeder interface {
	// NeedsDelta reports whether a full write would leave rows deleted
	// since the sink's last write in place.
	NeedsDelta() bool
}

// needsDelta reports whether s asks for deltas rebuilt from the history.
func needsDelta(s sink.Sink) bool {
	n, ok := s.(deltaNeeder)
	return ok && n.NeedsDelta()
}

// historyDelta returns the delta that moves a binding whose export state
// is st to j's snapshot, rebuilt from the snapshot history: the event of
// st's revision and checksum (in j's chain, else on the inventory's
// snapshot subject) and its snapshot are read back and diffed by row key
// with j's. It is nil when no such delta can be built: no state, a
// replayed state, a replay, an event not newer than the state, or a state
// whose event or objects the history no longer holds (expired by the
// snapshot stream's limits). A deletion gets the delta to the empty
// snapshot: every row of the state is deleted.
func (rt *runtime) historyDelta(ctx context.Context, st *busv1.ExportState, j *job) (*busv1.Delta, error) {
	ev := j.d.ev
	if st == nil || st.Replayed != nil || ev.Replay != nil || ev.Revision <= st.Revision {
		return nil, nil
	}
	base, err := rt.stateEvent(ctx, st, j)
	if err != nil || base == nil {
		return nil, err
	}
	old, err := rt.loader.Envelope(ctx, base)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read revision %d of %s from the history: %w", st.Revision, ev.Inventory, err)
	}
	var rows []busv1.Row
	if ev.Reason != busv1.ReasonDeleted {
		env, err := j.d.envelope(ctx, rt.loader)
		if err != nil {
			return nil, err
		}
		rows = env.Items
	}
	return diff(st, old.Items, rows)
}

// stateEvent returns the regular event of st's revision and checksum: from
// j's chain when it holds it, else from the inventory's snapshot history
// (its index, then that one event); nil when neither does.
func (rt *runtime) stateEvent(ctx context.Context, st *busv1.ExportState, j *job) (*busv1.SnapshotEvent, error) {
	match := func(ev *busv1.SnapshotEvent) bool {
		return ev.Replay == nil && ev.Revision == st.Revision && ev.Checksum == st.Checksum
	}
	for _, d := range j.events() {
		if match(d.ev) {
			return d.ev, nil
		}
	}
	// The index (event heads, no envelope) finds the event; only that one
	// is read whole.
	inv := j.d.ev.Inventory
	idx, err := history.Index(ctx, rt.js, inv)
	if err != nil {
		return nil, err
	}
	for i := len(idx) - 1; i >= 0; i-- {
		e := idx[i]
		if e.Replay || e.Revision != st.Revision || e.Checksum != st.Checksum {
			continue
		}
		s, err := history.At(ctx, rt.js, inv, e.Sequence)
		if errors.Is(err, history.ErrNotFound) {
			return nil, nil // expired since the index was read
		}
		if err != nil {
			return nil, err
		}
		return &s.Event, nil
	}
	return nil, nil
}

// diff is the delta from old, the rows of st's snapshot, to rows: the rows
// of rows whose key is new or whose canonical content changed, in rows'
// order (canonical), and the keys of old that rows lacks, in key order.
func diff(st *busv1.ExportState, old, rows []busv1.Row) (*busv1.Delta, error) {
	sums := make(map[busv1.RowKey][sha256.Size]byte, len(old))
	for i := range old {
		b, err := snapshot.Canonical(&old[i])
		if err != nil {
			return nil, fmt.Errorf("encode row %s of revision %d: %w", old[i].UID, st.Revision, err)
		}
		sums[old[i].Key()] = sha256.Sum256(b)
	}
	d := &busv1.Delta{BaseRevision: st.Revision, BaseChecksum: st.Checksum, Upserts: []busv1.Row{}, Deletes: []busv1.RowKey{}}
	for i := range rows {
		b, err := snapshot.Canonical(&rows[i])
		if err != nil {
			return nil, fmt.Errorf("encode row %s: %w", rows[i].UID, err)
		}
		k := rows[i].Key()
		if sum, ok := sums[k]; !ok || sum != sha256.Sum256(b) {
			d.Upserts = append(d.Upserts, rows[i])
		}
		delete(sums, k)
	}
	for k := range sums {
		d.Deletes = append(d.Deletes, k)
	}
	slices.SortFunc(d.Deletes, compareKeys)
	return d, nil
}
