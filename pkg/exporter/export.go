package exporter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/failpoint"
	"kollect.dev/kollect/pkg/sink"
)

// export makes one attempt to deliver j to w's sink: skip what the export
// state says is delivered or older, decide between the delta and the full
// snapshot and load only what that needs, write, record the export state
// and report the result.
func (rt *runtime) export(ctx context.Context, w *worker, j *job) error {
	ev := j.d.ev
	key := bus.ExportStateKey(w.inv, w.ref)
	st, stRev, err := rt.readState(ctx, key)
	if err != nil {
		return err
	}
	if st != nil && st.Revision > 0 && w.status.Revision == 0 {
		w.status = busv1.ExportStatus{Sink: w.ref, LastExportTime: st.ExportedAt, Checksum: st.Checksum, Revision: st.Revision, OK: true}
	}
	// A held binding defers every write; an event needing none (skipped, no
	// drift check due) finishes as usual.
	if h := heldOff(st, ev, time.Now()); h != nil && (!skip(st, ev) || driftDue(st, ev)) {
		return heldError(h)
	}
	if skip(st, ev) {
		if driftDue(st, ev) {
			return rt.repairDrift(ctx, w, j, key, st, stRev)
		}
		if sc, ok := rt.configs.lookup(w.ref); ok {
			rt.metrics.sinkCurrent(sc, w.inv, time.Now()) // it holds this revision or a newer one
		}
		return nil
	}
	if ev.Reason == busv1.ReasonDeleted && ev.DeletionPolicy != busv1.DeletionDelete {
		return nil
	}
	in, cfg, err := rt.configs.sink(ctx, w.ref, j.binding.SinkGeneration)
	if err != nil {
		return err
	}
	defer rt.configs.release(context.WithoutCancel(ctx), in)
	now := time.Now().UTC()
	var loads loadErr
	snap, err := rt.snapshot(ctx, in.sink, st, j, cfg.Cluster, now, &loads)
	if err != nil {
		return rt.loadFailed(w, j, err)
	}
	c, err := rt.acquire(ctx, w, key, st, stRev, ev)
	if err != nil {
		return err
	}
	started := time.Now()
	wctx, cancel := context.WithTimeoutCause(c.ctx, rt.cfg.WriteTimeout, errWriteTimeout)
	// A sink logs what does not fail the write (logr.FromContextOrDiscard).
	wctx = logr.NewContext(wctx, rt.log.WithValues("sink", w.ref.Namespace+"/"+w.ref.Name, "family", w.ref.Family, "inventory", w.inv))
	err = write(wctx, in.sink, snap)
	timedOut := errors.Is(context.Cause(wctx), errWriteTimeout)
	cancel()
	if err != nil {
		if lost := c.release(ctx); lost != nil {
			rt.metrics.claimLost()
			return lost
		}
		if lerr := loads.get(); lerr != nil && ctx.Err() == nil && !timedOut {
			return rt.loadFailed(w, j, lerr)
		}
		if timedOut {
			err = fmt.Errorf("%w after %s: %w", errWriteTimeout, rt.cfg.WriteTimeout, err)
		}
		return fmt.Errorf("export %s revision %d to %s sink %s/%s: %w", w.inv, ev.Revision, cfg.Type, w.ref.Namespace, w.ref.Name, err)
	}
	failpoint.Hit("exporter.afterSinkWrite") // the sink holds the revision, the export state does not
	rt.metrics.exported(cfg, w.inv, modeOf(in.sink, snap), time.Since(started), time.Now(), j.d.size(), snap.Envelope.ItemCount)
	rev, err := c.end()
	if err != nil {
		// The write went through although the claim was lost (a sink that
		// does not honour cancellation): another replica may have written
		// a newer revision since, and owns the state; record nothing.
		rt.metrics.claimLost()
		return err
	}
	rctx, rcancel := recordContext(ctx)
	defer rcancel()
	if ev.Replay != nil {
		return rt.recordReplay(rctx, key, c.base, rev, ev, now)
	}
	next := busv1.ExportState{Inventory: w.inv, Sink: w.ref, Checksum: ev.Checksum, Revision: ev.Revision, ExportedAt: now, Hold: c.base.Hold}
	if err := rt.recordState(rctx, key, next, true, rev); err != nil {
		return err
	}
	failpoint.Hit("exporter.afterStateCAS") // state recorded, the event not acknowledged
	w.status = busv1.ExportStatus{Sink: w.ref, LastExportTime: now, Checksum: ev.Checksum, Revision: ev.Revision, OK: true}
	rt.report(ctx, ev, w.status)
	return nil
}

// errWriteTimeout is the cause of a write cancelled after
// Config.WriteTimeout: a transient failure, retried with backoff.
var errWriteTimeout = errors.New("sink write timed out")

// write calls WriteDelta when the snapshot carries a delta (the sink then
// applies deltas), else Write.
func write(ctx context.Context, s sink.Sink, snap sink.Snapshot) error {
	if dw, ok := s.(sink.DeltaWriter); ok && snap.Delta != nil {
		return dw.WriteDelta(ctx, snap)
	}
	return s.Write(ctx, snap)
}

// readState returns the binding's export state and its KV revision; nil when
// the binding was never delivered.
func (rt *runtime) readState(ctx context.Context, key string) (*busv1.ExportState, uint64, error) {
	e, err := rt.state.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read export state %s: %w", key, err)
	}
	var st busv1.ExportState
	if json.Unmarshal(e.Value(), &st) != nil {
		return nil, e.Revision(), nil //nolint:nilerr // a corrupt state is treated as absent: the next write repairs it
	}
	return &st, e.Revision(), nil
}

// recordState writes next with compare-and-set, so that two replicas never
// move a binding's state backwards: on a conflict it re-reads and stops when
// the stored revision is already as new.
func (rt *runtime) recordState(ctx context.Context, key string, next busv1.ExportState, exists bool, rev uint64) error {
	var err error
	for range 5 {
		// Encoded each time: a retry keeps what it found (claim, hold).
		b, merr := json.Marshal(next)
		if merr != nil {
			return fmt.Errorf("encode export state %s: %w", key, merr)
		}
		if exists {
			_, err = rt.state.Update(ctx, key, b, rev)
		} else {
			_, err = rt.state.Create(ctx, key, b)
		}
		if err == nil || !casConflict(err) {
			break
		}
		cur, curRev, rerr := rt.readState(ctx, key)
		if rerr != nil {
			return rerr
		}
		if cur != nil {
			next.Hold = cur.Hold // a backfill's hold stays until the aggregator clears it
		}
		if cur != nil && cur.Revision >= next.Revision && !rt.owns(cur) {
			return nil // (a conflict under this replica's claim is a hold written meanwhile)
		}
		if cur != nil && cur.Claim != nil && cur.Claim.Owner != rt.id {
			next.Claim = cur.Claim // another replica's claim stays until it ends
		}
		exists, rev = true, curRev
	}
	if err != nil {
		return fmt.Errorf("record export state %s: %w", key, err)
	}
	return nil
}
