package exporter

import (
	"context"
	"fmt"
	"time"

	"kollect.dev/kollect/pkg/app"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// Results of NameDriftChecks.
const (
	// DriftInSync: the sink still holds what it was last given.
	DriftInSync = "in_sync"
	// DriftFound: the sink had drifted and the snapshot was written again.
	DriftFound = "drifted"
	// DriftError: the check failed; the event is retried like a failed write.
	DriftError = "error"
)

// driftDue reports whether ev, which skip says the binding already holds,
// is a periodic re-export that asks the sink to check for drift: the export
// state names exactly ev's revision and checksum and no replayed snapshot
// sits on top of it. Redeliveries of a change, replays and older events are
// never checked.
func driftDue(st *busv1.ExportState, ev *busv1.SnapshotEvent) bool {
	return st != nil && ev.Reason == busv1.ReasonPeriodic && ev.Replay == nil && st.Replayed == nil &&
		st.Revision == ev.Revision && st.Checksum == ev.Checksum
}

// repairDrift runs the drift check of a periodic event the binding already
// delivered (driftDue), when the sink implements sink.DriftChecker. A sink
// that drifted is given the full snapshot again with Repair set, under a
// claim like any write; the export state keeps its revision and checksum
// with a new export time, and the status report names the drift.
func (rt *runtime) repairDrift(ctx context.Context, w *worker, j *job, key string, st *busv1.ExportState, stRev uint64) error {
	ev := j.d.ev
	in, cfg, err := rt.configs.sink(ctx, w.ref, j.binding.SinkGeneration)
	if err != nil {
		return err
	}
	defer rt.configs.release(context.WithoutCancel(ctx), in)
	dc, ok := in.sink.(sink.DriftChecker)
	if !ok {
		// Nothing to check: the export state says the sink holds this revision.
		rt.metrics.sinkCurrent(cfg, w.inv, time.Now())
		return nil
	}
	now := time.Now().UTC()
	snap := sink.Snapshot{Envelope: header(ev).Stamp(cfg.Cluster, now), MaxExportBytes: j.binding.MaxExportBytes,
		Load: func(ctx context.Context) (busv1.Envelope, error) {
			env, err := j.d.envelope(ctx, rt.loader)
			if err != nil {
				return busv1.Envelope{}, err
			}
			return env.Stamp(cfg.Cluster, now), nil
		}}
	dctx, cancel := context.WithTimeoutCause(ctx, rt.cfg.WriteTimeout, errWriteTimeout)
	reason, err := dc.Drift(dctx, snap)
	cancel()
	if err != nil {
		rt.metrics.driftChecked(cfg.Type, DriftError)
		return fmt.Errorf("check %s revision %d in %s sink %s/%s for drift: %w", w.inv, ev.Revision, cfg.Type, w.ref.Namespace, w.ref.Name, err)
	}
	if reason == "" {
		rt.metrics.driftChecked(cfg.Type, DriftInSync)
		rt.metrics.sinkCurrent(cfg, w.inv, time.Now())
		return nil
	}
	rt.metrics.driftChecked(cfg.Type, DriftFound)
	snap = sink.Snapshot{Repair: true, MaxExportBytes: j.binding.MaxExportBytes}
	var loads loadErr
	if streams(in.sink) {
		rt.deferLoad(&snap, j, cfg.Cluster, now, &loads)
	} else {
		env, err := j.d.envelope(ctx, rt.loader)
		if err != nil {
			return rt.loadFailed(w, j, err)
		}
		snap.Envelope = env.Stamp(cfg.Cluster, now)
	}
	c, err := rt.acquire(ctx, w, key, st, stRev, ev)
	if err != nil {
		return err
	}
	started := time.Now()
	wctx, cancel := context.WithTimeoutCause(c.ctx, rt.cfg.WriteTimeout, errWriteTimeout)
	err = in.sink.Write(wctx, snap)
	cancel()
	if err != nil {
		if lost := c.release(ctx); lost != nil {
			rt.metrics.claimLost()
			return lost
		}
		if lerr := loads.get(); lerr != nil && ctx.Err() == nil {
			return rt.loadFailed(w, j, lerr)
		}
		return fmt.Errorf("repair %s revision %d in %s sink %s/%s (%s): %w", w.inv, ev.Revision, cfg.Type, w.ref.Namespace, w.ref.Name, reason, err)
	}
	rt.metrics.exported(cfg, w.inv, ModeFull, time.Since(started), time.Now(), j.d.size(), snap.Envelope.ItemCount)
	rev, err := c.end()
	if err != nil {
		rt.metrics.claimLost() // another replica holds the binding now: record nothing
		return err
	}
	rt.metrics.repaired(cfg.Type)
	next := c.base
	next.Checksum, next.Revision, next.ExportedAt = ev.Checksum, ev.Revision, now
	rctx, rcancel := recordContext(ctx)
	defer rcancel()
	if err := rt.recordState(rctx, key, next, true, rev); err != nil {
		return err
	}
	rt.log.Info("sink drift repaired", app.KeyInventory, w.inv.String(), app.KeySink, w.ref.BindingName(), app.KeyRevision, ev.Revision, "drift", reason)
	w.status = busv1.ExportStatus{Sink: w.ref, LastExportTime: now, Checksum: ev.Checksum, Revision: ev.Revision, OK: true, Repaired: reason}
	rt.report(ctx, ev, w.status)
	w.status.Repaired = ""
	return nil
}
