package engine

import (
	"context"
	"errors"
	"time"

	"kollect.dev/kollect/pkg/app"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/aggregator/internal/index"
	"kollect.dev/kollect/services/aggregator/internal/publish"
)

// fire handles the inventories whose check or periodic event is due, then
// garbage collection.
func (e *Engine) fire(ctx context.Context) {
	now := e.clock.Now()
	for _, name := range e.timers.due(now) {
		st := e.invs[name]
		if st == nil {
			continue
		}
		if st.phase != idle && !st.settleAt.IsZero() && !st.settleAt.After(now) {
			e.check(ctx, st, now)
			if st = e.invs[name]; st == nil {
				continue // its final event went
			}
		}
		e.periodic(ctx, st, now)
		e.schedule(st)
	}
	e.gcDue(ctx, now)
}

// check runs st's pending check: it reads st's last event back when
// loading, then publishes the final event when deleting, or settles.
func (e *Engine) check(ctx context.Context, st *invState, now time.Time) {
	st.settleAt = time.Time{}
	defer e.observe(Event{Kind: EventChecked, Inventory: st.name})
	if st.phase == loading && !e.load(ctx, st, now) {
		return
	}
	if st.phase == deleting {
		e.publishDeleted(ctx, st, now)
		return
	}
	e.settle(ctx, st, now)
}

// settle publishes st when its snapshot or generation changed since the last
// event; st is idle afterwards unless the publish failed.
func (e *Engine) settle(ctx context.Context, st *invState, now time.Time) {
	st.phase = idle
	if st.cfg.Suspend {
		st.due = nil
		return
	}
	if e.holdsFor(st) {
		return // the rows marker's return marks every inventory dirty
	}
	start := time.Now()
	sum := st.view.Checksum()
	e.m.snapshotBuilt(time.Since(start))
	if sum == st.last.checksum && st.cfg.Generation == st.last.generation &&
		st.last.reason != busv1.ReasonDeleted {
		st.view.Published()
		st.reconcileDue(now)
		e.report(st, now)
		return
	}
	if e.deferBulk(st, now) {
		return
	}
	if e.publishChange(ctx, st, sum, busv1.ReasonChange, now) {
		st.scheduleAll(now)
		e.report(st, now)
	}
}

// load reads the inventory's last event back, so the revision sequence, the
// delta base and the cadence continue where the last writer left them; st
// then settles, or deletes when its config went.
func (e *Engine) load(ctx context.Context, st *invState, now time.Time) bool {
	// Replays (kollect replay) on the subject are not the aggregator's
	// revisions: continue from the last published event, but expect the
	// subject's true last sequence on the next publish.
	last, seq, err := history.LastPublished(ctx, e.js, st.name)
	if err != nil {
		e.failed(st, err, now)
		return false
	}
	st.last, st.body = published{seq: seq}, body{}
	if st.view != nil {
		st.view.ForgetBase()
	}
	if last != nil {
		ev := &last.Event
		st.last = published{revision: ev.Revision, checksum: ev.Checksum, previous: ev.PreviousChecksum, generation: ev.Generation,
			seq: seq, itemCount: ev.ItemCount, createdAt: ev.CreatedAt, reason: ev.Reason,
			bindings: sinkRefs(ev.Bindings)}
		st.body = bodyOf(ev)
		if err := e.loadBase(ctx, st, ev); err != nil {
			e.opts.Log.Error(err, "no delta base; the next event carries no delta", app.KeyInventory, st.name.String())
		}
	}
	floor, err := exportFloor(ctx, e.js, st.name)
	if err != nil {
		e.failed(st, err, now)
		return false
	}
	source := "export-state"
	if f := e.configFloor(ctx, st); f > floor {
		// The status' last revision lives in etcd: it survives losing
		// both the history and the export state with the NATS store. It
		// trails the sinks by the status coalescing, so a sink may hold a
		// few revisions more: jump past them rather than repeat a number
		// a sink already holds with other content.
		floor, source = f+StatusFloorMargin, "status"
	}
	if floor > st.last.revision {
		// The subject lost revisions sinks hold: continue above them, with
		// no delta (its base is gone) and no checksum, so the current
		// snapshot is published again at once.
		e.m.lostHistory(source)
		e.opts.Log.Info("the snapshot history is behind the sinks; continuing above their revision",
			app.KeyInventory, st.name.String(), app.KeyRevision, floor, "floorSource", source)
		st.last.revision, st.last.checksum, st.body = floor, "", body{}
		if st.view != nil {
			st.view.ForgetBase()
		}
	}
	st.phase = settling
	if st.deleted {
		st.phase = deleting
	}
	if st.cfg != nil {
		st.scheduleFromLast(now)
	}
	return true
}

func (e *Engine) publishDeleted(ctx context.Context, st *invState, now time.Time) {
	if st.last.revision == 0 || st.last.reason == busv1.ReasonDeleted {
		e.drop(st.name)
		return
	}
	if e.publishChange(ctx, st, snapshot.ChecksumOfDigests(nil), busv1.ReasonDeleted, now) {
		e.drop(st.name)
	}
}

// loadBase reads the rows of ev, the last published snapshot, as the base of
// the view's next delta.
func (e *Engine) loadBase(ctx context.Context, st *invState, ev *busv1.SnapshotEvent) error {
	if st.view == nil || ev.Reason == busv1.ReasonDeleted {
		return nil
	}
	if ev.ManifestRef != nil {
		m, err := e.loader.Manifest(ctx, ev)
		if err != nil {
			return err
		}
		return st.view.SetBaseChunks(m.Chunks, func(c busv1.Chunk) ([]*index.Row, error) {
			b, err := e.loader.Chunk(ctx, ev.ManifestRef, c)
			if err != nil {
				return nil, err
			}
			return index.ParseChunk(b)
		})
	}
	raws, err := e.loader.RawRows(ctx, ev)
	if err != nil {
		return err
	}
	rows := make([]*index.Row, len(raws))
	for i, raw := range raws {
		if rows[i], err = index.FromRaw(raw); err != nil {
			return err
		}
	}
	st.view.SetBase(rows)
	return nil
}

// drop forgets a deleted inventory.
func (e *Engine) drop(name busv1.NamespacedName) {
	delete(e.invs, name)
	e.timers.remove(name)
	e.m.forget(name)
}

// failed records a publish failure and retries after the backoff: a failed
// periodic event is retried as a settle; a conflict means another writer
// moved the subject on, so the last event is read back first.
func (e *Engine) failed(st *invState, err error, now time.Time) {
	switch {
	case errors.Is(err, publish.ErrConflict):
		st.phase = loading
	case st.phase == idle:
		st.phase = settling
	}
	e.opts.Log.Error(err, "publish snapshot", app.KeyInventory, st.name.String(), app.KeyRevision, st.last.revision)
	st.outcome = busv1.Outcome{Reason: v1alpha1.ReasonPublishFailed, Message: err.Error()}
	st.settleAt = now.Add(e.opts.RetryBackoff)
	e.report(st, now)
}
