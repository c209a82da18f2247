package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/snapshot"
)

// errBadToken is the permanent error of a sink whose token the store refuses.
var errBadToken = errors.New("memory store refused the token")

// Sink writes to a Store. It implements sink.Sink, sink.Checker,
// sink.DeltaWriter and sink.DriftChecker.
type Sink struct {
	store *Store
	token string
}

// Check reports a permanent error when the store refuses the sink's token.
func (k *Sink) Check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if k.store.token != "" && k.token != k.store.token {
		return sink.Permanent(errBadToken)
	}
	return nil
}

// Write stores s unless the store holds a newer or the same snapshot. A
// header-only s (the store streams rows) is read with s.Rows.
func (k *Sink) Write(ctx context.Context, s sink.Snapshot) error {
	if s.Loaded() {
		return k.apply(ctx, s, false, false)
	}
	rows := make([]busv1.Row, 0, s.Envelope.ItemCount)
	for raw, err := range s.Rows(ctx) {
		if err != nil {
			return fmt.Errorf("write %s to memory: %w", s.Envelope.Inventory, err)
		}
		var r busv1.Row
		if err := json.Unmarshal(raw, &r); err != nil {
			return sink.Permanent(fmt.Errorf("write %s to memory: decode a row: %w", s.Envelope.Inventory, err))
		}
		rows = append(rows, r)
	}
	s.Envelope.Items, s.Load, s.Stream = rows, nil, nil
	return k.apply(ctx, s, false, true)
}

// StreamsRows reports whether the store streams rows (Store.StreamRows).
func (k *Sink) StreamsRows() bool {
	k.store.mu.Lock()
	defer k.store.mu.Unlock()
	return k.store.streams
}

// WriteDelta applies s.Delta to the stored base revision and checksum;
// without the base it loads and stores the full snapshot.
func (k *Sink) WriteDelta(ctx context.Context, s sink.Snapshot) error {
	if s.Delta == nil || s.Deleted || !k.holds(s.Envelope, s.Delta) {
		full, err := s.WithFull(ctx)
		if err != nil {
			return fmt.Errorf("write %s to memory: %w", s.Envelope.Inventory, err)
		}
		return k.apply(ctx, full, false, false)
	}
	return k.apply(ctx, s, true, false)
}

// holds reports whether the store holds d's base for env's projection.
func (k *Sink) holds(env busv1.Envelope, d *busv1.Delta) bool {
	st := k.store
	st.mu.Lock()
	defer st.mu.Unlock()
	cur, ok := st.data[key{env.Cluster, env.Inventory}]
	return ok && cur.Revision == d.BaseRevision && cur.Checksum == d.BaseChecksum
}

// Drift reports how the store's projection of s's inventory differs from
// s: missing, another revision or checksum, another row count, or rows
// whose checksum is not s's (a row edited with Store.Edit). A newer revision
// is not drift: Write would ignore s, and the newer snapshot's own event
// follows.
func (k *Sink) Drift(ctx context.Context, s sink.Snapshot) (string, error) {
	if err := k.Check(ctx); err != nil {
		return "", fmt.Errorf("check %s in memory: %w", s.Envelope.Inventory, err)
	}
	env := s.Envelope
	cur, ok := k.store.Get(env.Cluster, env.Inventory)
	switch {
	case !ok:
		return "projection missing", nil
	case cur.Revision > env.Revision:
		return "", nil
	case cur.Revision != env.Revision || cur.Checksum != env.Checksum:
		return fmt.Sprintf("holds revision %d checksum %s", cur.Revision, cur.Checksum), nil
	case len(cur.Rows) != env.ItemCount:
		return fmt.Sprintf("%d rows, want %d", len(cur.Rows), env.ItemCount), nil
	}
	sum, err := snapshot.Checksum(cur.Rows)
	if err != nil {
		return "", fmt.Errorf("check %s in memory: %w", env.Inventory, err)
	}
	if sum != env.Checksum {
		return "row content changed", nil
	}
	return "", nil
}

// Close does nothing: the store outlives its sinks.
func (k *Sink) Close(context.Context) error { return nil }

func (k *Sink) apply(ctx context.Context, s sink.Snapshot, delta, streamed bool) error {
	if err := k.Check(ctx); err != nil {
		return fmt.Errorf("write %s to memory: %w", s.Envelope.Inventory, err)
	}
	st := k.store
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.fault != nil {
		if err := st.fault(s); err != nil {
			return fmt.Errorf("write %s to memory: %w", s.Envelope.Inventory, err)
		}
	}
	env := &s.Envelope
	kk := key{env.Cluster, env.Inventory}
	cur, ok := st.data[kk]
	if ok && !s.Replay && (cur.Revision > env.Revision || !s.Repair && cur.Revision == env.Revision && cur.Checksum == env.Checksum) {
		return nil
	}
	w := Write{Cluster: env.Cluster, Inventory: env.Inventory, Revision: env.Revision, Checksum: env.Checksum,
		Deleted: s.Deleted, Repair: s.Repair, Streamed: streamed}
	switch {
	case s.Deleted:
		delete(st.data, kk)
	case delta && ok && cur.Revision == s.Delta.BaseRevision && cur.Checksum == s.Delta.BaseChecksum:
		w.Delta = true
		st.data[kk] = Stored{Revision: env.Revision, Checksum: env.Checksum, ExportedAt: env.ExportedAt,
			Rows: ApplyDelta(cur.Rows, s.Delta)}
	case !s.Loaded():
		// The base changed since WriteDelta looked (a concurrent write):
		// refuse rather than store a header without rows.
		return fmt.Errorf("write %s to memory: the delta's base is no longer stored", env.Inventory)
	default:
		st.data[kk] = Stored{Revision: env.Revision, Checksum: env.Checksum, ExportedAt: env.ExportedAt,
			Rows: slices.Clone(env.Items)}
	}
	st.log = append(st.log, w)
	return nil
}

// ApplyDelta returns rows with d's deletes removed and upserts applied, in
// canonical order.
func ApplyDelta(rows []busv1.Row, d *busv1.Delta) []busv1.Row {
	byKey := make(map[busv1.RowKey]busv1.Row, len(rows))
	for _, r := range rows {
		byKey[r.Key()] = r
	}
	for _, k := range d.Deletes {
		delete(byKey, k)
	}
	for _, r := range d.Upserts {
		byKey[r.Key()] = r
	}
	out := make([]busv1.Row, 0, len(byKey))
	for _, r := range byKey {
		out = append(out, r)
	}
	slices.SortFunc(out, busv1.CompareRows)
	return out
}
