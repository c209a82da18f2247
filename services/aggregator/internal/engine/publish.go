package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/aggregator/internal/publish"
)

// publishChange publishes the view's current rows as the next revision, with
// the delta since the last publish when the view knows its base.
func (e *Engine) publishChange(ctx context.Context, st *invState, sum string, reason busv1.SnapshotReason, now time.Time) bool {
	rev := st.last.revision + 1
	ev := busv1.SnapshotEvent{Inventory: st.name, InventoryUID: st.cfg.UID, Revision: rev, Generation: st.cfg.Generation,
		Checksum: sum, PreviousChecksum: st.last.checksum, CreatedAt: st.nextCreatedAt(now), Reason: reason,
		Bindings: bindings(st.cfg.Bindings), DeletionPolicy: st.cfg.DeletionPolicy}
	var c publish.Content
	if reason == busv1.ReasonDeleted {
		c.Envelope = spliceEnvelope(&ev, nil)
		if st.view != nil && st.view.HasBase() {
			c.Delta = spliceDelta(st.last.revision, st.last.checksum, nil, st.view.Base())
		}
	} else {
		ev.ItemCount = st.view.Len()
		ev.AttributeTypes = e.rows.AttributeTypes(st.cfg)
		c = e.content(st, &ev)
	}
	r, err := e.publish(ctx, st, ev, c)
	if err != nil {
		e.failed(st, err, now)
		return false
	}
	st.last = published{revision: rev, checksum: sum, previous: ev.PreviousChecksum, generation: st.cfg.Generation, seq: r.Seq,
		itemCount: ev.ItemCount, createdAt: ev.CreatedAt, reason: reason, bindings: sinkRefs(ev.Bindings)}
	st.body, st.outcome = r.Body, busv1.Outcome{}
	if st.view != nil {
		st.view.Published()
	}
	e.observe(Event{Kind: EventPublished, Inventory: st.name, Revision: rev})
	return true
}

// periodic re-publishes st's unchanged snapshot to each binding that is due,
// one event per binding.
func (e *Engine) periodic(ctx context.Context, st *invState, now time.Time) {
	if !st.periodicDue() {
		return
	}
	for _, b := range st.cfg.Bindings {
		at, ok := st.due[b.SinkRef]
		if !ok || at.After(now) {
			continue
		}
		switch {
		case !hasBody(st.body):
			e.reload(st)
		case !e.publishPeriodic(ctx, st, b, now):
			st.due[b.SinkRef] = now.Add(e.opts.RetryBackoff)
			return
		}
		st.due[b.SinkRef] = now.Add(b.EffectiveInterval.Duration)
		e.report(st, now)
	}
}

// hasBody reports whether b holds what periodic events repeat.
func hasBody(b body) bool {
	return b.Envelope != nil || b.ManifestRef != nil || b.EnvelopeRef != nil
}

// reload reads st's last event back at its next check, which publishes a new
// revision when the rows moved on: st has no body for periodic events to
// repeat (lost with the history).
func (e *Engine) reload(st *invState) {
	e.markDirty(st)
	st.phase = loading
}

// publishPeriodic re-publishes st's last revision to binding b.
func (e *Engine) publishPeriodic(ctx context.Context, st *invState, b busv1.Binding, now time.Time) bool {
	ev := busv1.SnapshotEvent{Inventory: st.name, InventoryUID: st.cfg.UID, Revision: st.last.revision, Generation: st.last.generation,
		Checksum: st.last.checksum, PreviousChecksum: st.last.previous, ItemCount: st.last.itemCount, CreatedAt: st.nextCreatedAt(now),
		Reason: busv1.ReasonPeriodic, Bindings: []busv1.Binding{b}, DeletionPolicy: st.cfg.DeletionPolicy,
		AttributeTypes: e.rows.AttributeTypes(st.cfg)}
	r, err := e.publish(ctx, st, ev, publish.Content{Reuse: &st.body})
	if err != nil {
		e.failed(st, err, now)
		return false
	}
	st.body = r.Body // the stored envelope, for the next periodic event
	e.dropSuperseded(ctx, st, b.SinkRef, r.Seq)
	st.last.seq, st.last.createdAt, st.last.reason = r.Seq, ev.CreatedAt, busv1.ReasonPeriodic
	st.last.bindings = []busv1.SinkRef{b.SinkRef}
	e.observe(Event{Kind: EventPublished, Inventory: st.name, Revision: st.last.revision})
	return true
}

// dropSuperseded deletes the periodic event to binding ref that the one at
// seq supersedes: a binding's periodic events of one inventory never
// accumulate on the bus (the next collection drops those an earlier engine
// published, trimPeriodic). A failure is only logged: the collection
// retries it.
func (e *Engine) dropSuperseded(ctx context.Context, st *invState, ref busv1.SinkRef, seq uint64) {
	if st.periodic == nil {
		st.periodic = map[busv1.SinkRef]uint64{}
	}
	old := st.periodic[ref]
	st.periodic[ref] = seq
	if old == 0 {
		return
	}
	if err := e.deleteEvent(ctx, old); err != nil {
		e.opts.Log.V(1).Info("could not delete a superseded periodic event", app.KeyInventory, st.name.String(), "error", err.Error())
	}
}

// deleteEvent deletes the snapshot event at seq; one already gone is not an
// error.
func (e *Engine) deleteEvent(ctx context.Context, seq uint64) error {
	if e.snapshots == nil {
		s, err := e.js.Stream(ctx, bus.StreamSnapshots)
		if err != nil {
			return fmt.Errorf("open stream %s: %w", bus.StreamSnapshots, err)
		}
		e.snapshots = s
	}
	err := e.snapshots.DeleteMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete snapshot event %d: %w", seq, err)
	}
	e.m.periodicDropped()
	return nil
}

// publish publishes ev after st's last event and records it in the metrics.
func (e *Engine) publish(ctx context.Context, st *invState, ev busv1.SnapshotEvent, c publish.Content) (publish.Receipt, error) {
	start := time.Now()
	r, err := e.pub.Publish(ctx, ev, c, st.last.seq)
	size := int64(2)
	if st.view != nil && ev.Reason != busv1.ReasonDeleted {
		size = st.view.ItemsBytes()
	}
	e.m.published(&ev, size, time.Since(start), err)
	e.m.stored(r.Written)
	e.written += r.Written + int64(r.EventBytes) // what the bus keeps: a collection comes sooner after many
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
