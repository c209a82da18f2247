package engine

import (
	"context"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/services/aggregator/internal/index"
	"kollect.dev/kollect/services/aggregator/internal/publish"
)

// publishChange publishes snap as the next revision of st, addressed to every
// binding, with the delta against the last revision.
func (e *Engine) publishChange(ctx context.Context, st *invState, snap *index.Snapshot, reason busv1.SnapshotReason, now time.Time) bool {
	rev := st.last.revision + 1
	items := snap.Items
	if items == nil {
		items = []busv1.Row{}
	}
	env := &busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Checksum: snap.Checksum, Revision: rev,
		Generation: st.cfg.Generation, Inventory: st.name, ItemCount: len(items), Items: items}
	ev := busv1.SnapshotEvent{Inventory: st.name, Revision: rev, Generation: st.cfg.Generation,
		Checksum: snap.Checksum, ItemCount: len(items), CreatedAt: st.nextCreatedAt(now), Reason: reason,
		Envelope: env, Delta: index.Delta(st.base, st.last.revision, snap), Bindings: bindings(st.cfg.Bindings),
		DeletionPolicy: st.cfg.DeletionPolicy}
	r, err := e.publish(ctx, st, ev)
	if err != nil {
		e.failed(st, err, now)
		return false
	}
	st.last = published{revision: rev, checksum: snap.Checksum, generation: st.cfg.Generation, seq: r.Seq,
		itemCount: len(items), createdAt: ev.CreatedAt, reason: reason, bindings: sinkRefs(ev.Bindings)}
	st.base, st.delta, st.ref, st.outcome = snap, ev.Delta, r.Ref, busv1.Outcome{}
	e.events.Add(1)
	return true
}

// periodic re-publishes st's unchanged snapshot to each binding that is due,
// one event per binding.
func (e *Engine) periodic(ctx context.Context, st *invState, now time.Time) {
	if st.cfg == nil || st.deleted || st.cfg.Suspend || !st.loaded || !st.settleAt.IsZero() || st.last.revision == 0 {
		return
	}
	for _, b := range st.cfg.Bindings {
		at, ok := st.due[b.SinkRef]
		if !ok || at.After(now) {
			continue
		}
		if !e.publishPeriodic(ctx, st, b, now) {
			st.due[b.SinkRef] = now.Add(e.opts.RetryBackoff)
			return
		}
		st.due[b.SinkRef] = now.Add(b.EffectiveInterval.Duration)
		e.report(st, now)
	}
}

func (e *Engine) publishPeriodic(ctx context.Context, st *invState, b busv1.Binding, now time.Time) bool {
	if st.base == nil && st.ref == nil {
		e.markDirty(st)
		st.loaded = false // reload, or publish a new revision when the rows moved on
		return true
	}
	ev := busv1.SnapshotEvent{Inventory: st.name, Revision: st.last.revision, Generation: st.last.generation,
		Checksum: st.last.checksum, ItemCount: st.last.itemCount, CreatedAt: st.nextCreatedAt(now),
		Reason: busv1.ReasonPeriodic, Delta: st.delta, Bindings: []busv1.Binding{b}, DeletionPolicy: st.cfg.DeletionPolicy}
	if st.ref != nil {
		ev.EnvelopeRef = st.ref
	} else {
		ev.Envelope = &busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Checksum: st.last.checksum,
			Revision: st.last.revision, Generation: st.last.generation, Inventory: st.name,
			ItemCount: len(st.base.Items), Items: nonNil(st.base.Items)}
	}
	r, err := e.publish(ctx, st, ev)
	if err != nil {
		e.failed(st, err, now)
		return false
	}
	st.last.seq, st.last.createdAt, st.last.reason = r.Seq, ev.CreatedAt, busv1.ReasonPeriodic
	st.last.bindings = []busv1.SinkRef{b.SinkRef}
	if r.Ref != nil {
		st.ref = r.Ref
	}
	e.events.Add(1)
	return true
}

// publish publishes ev after st's last event and records it in the metrics.
func (e *Engine) publish(ctx context.Context, st *invState, ev busv1.SnapshotEvent) (publish.Receipt, error) {
	start := time.Now()
	r, err := e.pub.Publish(ctx, ev, st.last.seq)
	e.m.published(&ev, r.EnvelopeBytes, time.Since(start), err)
	return r, err
}

// nextCreatedAt returns now in UTC, or just after the last event when the
// clock has not moved, so that every event's Nats-Msg-Id is distinct.
func (st *invState) nextCreatedAt(now time.Time) time.Time {
	t := now.UTC()
	if !t.After(st.last.createdAt) {
		t = st.last.createdAt.Add(time.Nanosecond).UTC()
	}
	return t
}

// reconcileDue adds bindings that have no schedule yet and drops bindings
// that are gone.
func (st *invState) reconcileDue(now time.Time) {
	want := map[busv1.SinkRef]time.Duration{}
	for _, b := range st.cfg.Bindings {
		if b.EffectiveInterval.Duration > 0 {
			want[b.SinkRef] = b.EffectiveInterval.Duration
		}
	}
	if st.due == nil {
		st.due = map[busv1.SinkRef]time.Time{}
	}
	for ref := range st.due {
		if _, ok := want[ref]; !ok {
			delete(st.due, ref)
		}
	}
	for ref, d := range want {
		if _, ok := st.due[ref]; !ok {
			st.due[ref] = now.Add(d)
		}
	}
}

func bindings(bs []busv1.Binding) []busv1.Binding {
	if bs == nil {
		return []busv1.Binding{}
	}
	return bs
}

func nonNil(rows []busv1.Row) []busv1.Row {
	if rows == nil {
		return []busv1.Row{}
	}
	return rows
}
