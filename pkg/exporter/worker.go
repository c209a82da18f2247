package exporter

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kollect.dev/kollect/pkg/app"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
)

// worker delivers to one (inventory, sink) binding, one job at a time and
// in revision order. It holds at most one job in flight and one pending: a
// newer event consecutive to the pending job (its delta's base is the
// pending newest event) joins its chain, so that the deltas compose into
// one write; any other newer event replaces (and finishes) the pending job,
// since every event references the full snapshot.
type worker struct {
	rt  *runtime
	inv busv1.NamespacedName
	ref busv1.SinkRef

	wake    chan struct{}
	stop    context.CancelFunc
	pending *job // guarded by rt.mu
	// parked is the newest regular job deferred by a backfill's hold
	// (errHeld) while the backfill's replay events go through; it is taken
	// again when nothing is pending. Guarded by rt.mu.
	parked  *job
	current uint64    // revision in flight, guarded by rt.mu
	active  time.Time // last handed a job, guarded by rt.mu
	status  busv1.ExportStatus
}

// idleWorkerTTL is how long a worker whose binding is gone stays idle
// before it is stopped.
const idleWorkerTTL = time.Minute

// sweepWorkers stops, every ttl, the idle workers of bindings no inventory
// config lists any more (removed bindings, deleted inventories after their
// final event), so a long-running exporter does not keep one goroutine per
// binding it ever served.
func (rt *runtime) sweepWorkers(ctx context.Context, ttl time.Duration) {
	t := time.NewTicker(ttl)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			rt.sweep(time.Now().Add(-ttl))
		}
	}
}

// sweep stops the workers idle since before cutoff whose binding is gone.
func (rt *runtime) sweep(cutoff time.Time) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	for k, w := range rt.workers {
		if w.pending == nil && w.parked == nil && w.current == 0 && w.active.Before(cutoff) && !rt.configs.listed(k.inv, k.ref) {
			w.stop()
			delete(rt.workers, k)
			rt.metrics.forgetBinding(k.inv, k.ref)
		}
	}
}

// offer queues j unless the worker already has that revision or a newer one
// in flight or pending; whatever is not kept is finished at once. A regular
// event consecutive to the pending job extends its chain (see chain), and
// the event it follows is finished.
func (w *worker) offer(j *job) {
	w.rt.mu.Lock()
	var drop *job
	switch {
	case j.backfill() && w.pending != nil && !w.pending.replay():
		// A backfill's revision goes before a pending regular event, which
		// its hold defers anyway: that one waits parked.
		drop, w.pending = w.park(w.pending), j
	case !j.replay() && w.pending != nil && w.pending.backfill():
		drop = w.park(j)
	case j.replay():
		// A replay is written whatever its revision, unless a regular
		// event is pending: the newer state wins and the replay is dropped.
		if w.pending != nil && !w.pending.replay() {
			drop = j
		} else {
			drop, w.pending = w.pending, j
		}
	case w.pending != nil && w.pending.replay():
		// A regular event arriving after a pending replay replaces it.
		drop, w.pending = w.pending, j
	case w.current >= j.revision() || w.pending != nil && w.pending.revision() >= j.revision() ||
		w.parked != nil && w.parked.revision() >= j.revision():
		drop = j
	case w.pending == nil:
		w.pending = j
	default:
		drop, w.pending = w.pending, j
		if c := chain(drop, j); c != nil {
			drop, w.pending = &job{d: drop.d}, c
		}
	}
	w.rt.mu.Unlock()
	if drop != nil {
		drop.finish()
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// requeue puts j, superseded while retrying, in front of the pending chain
// when the pending events are consecutive to it, so that the next write
// still moves the sink from the state before j by one composed delta; j is
// finished either way, as a superseded job always was.
func (w *worker) requeue(j *job) {
	w.rt.mu.Lock()
	if w.pending != nil {
		if c := chain(j, w.pending); c != nil {
			w.pending = c // keeps j.d for its delta only
		}
	}
	w.rt.mu.Unlock()
	j.finish()
}

// park keeps regular job j aside while a backfill holds the binding,
// unless a newer one is parked; it returns the job not kept, for the caller
// to finish outside rt.mu. The newest event references the full snapshot,
// and the sink holds a replayed one, so no delta chains onto it. Called
// with rt.mu held.
func (w *worker) park(j *job) *job {
	if w.parked != nil && w.parked.revision() >= j.revision() {
		return j
	}
	drop := w.parked
	w.parked = j
	return drop
}

// parkJob parks j after a write its hold deferred.
func (w *worker) parkJob(j *job) {
	w.rt.mu.Lock()
	drop := w.park(j)
	w.rt.mu.Unlock()
	if drop != nil {
		drop.finish()
	}
}

// take moves the pending job in flight, else the parked one.
func (w *worker) take() *job {
	w.rt.mu.Lock()
	defer w.rt.mu.Unlock()
	j := w.pending
	w.pending = nil
	if j == nil {
		j, w.parked = w.parked, nil
	}
	if j != nil {
		w.current = j.revision()
	}
	return j
}

// superseded reports whether a newer job than j is pending, or, for a
// regular j, a backfill's revision (which its hold lets through first).
func (w *worker) superseded(j *job) bool {
	w.rt.mu.Lock()
	defer w.rt.mu.Unlock()
	switch {
	case w.pending == nil:
		return false
	case !j.replay() && w.pending.backfill():
		return true
	case j.backfill() && !w.pending.replay():
		return false // the regular event waits for the backfill's hold anyway
	}
	return w.pending.revision() > j.revision() || j.replay() && !w.pending.replay()
}

// backfillPending reports whether a backfill's revision is pending.
func (w *worker) backfillPending() bool {
	w.rt.mu.Lock()
	defer w.rt.mu.Unlock()
	return w.pending != nil && w.pending.backfill()
}

func (w *worker) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		}
		for j := w.take(); j != nil; j = w.take() {
			switch w.deliver(ctx, j) {
			case finished:
				j.finish()
			case superseded:
				w.requeue(j)
			case parked:
				w.parkJob(j)
			}
			w.rt.mu.Lock()
			w.current = 0
			w.rt.mu.Unlock()
		}
	}
}

// outcome is how deliver left a job.
type outcome int

const (
	// finished: delivered, skipped or dead-lettered.
	finished outcome = iota
	// superseded: a newer job is pending; j was not written.
	superseded
	// stopped: shutting down, the message is released instead.
	stopped
	// parked: a backfill's hold defers j and the backfill's next revision
	// is pending: j waits parked (worker.parked).
	parked
)

// deliver tries j until it is delivered, skipped, superseded or fails
// permanently.
func (w *worker) deliver(ctx context.Context, j *job) outcome {
	br := w.rt.breaker(w.ref)
	rotated := false
	var configPending time.Time // since when the sink config is awaited
	held := false               // a hold's deferral was logged
	for attempt := 0; ; attempt++ {
		if wait := br.wait(time.Now()); wait > 0 {
			if !w.sleep(ctx, j, wait) {
				return w.interrupted(ctx)
			}
		}
		err := w.rt.export(ctx, w, j)
		sc := w.rt.configs.configOf(w.ref)
		if errors.Is(err, errConfigPending) {
			if configPending.IsZero() {
				configPending = time.Now()
			}
			if waited := time.Since(configPending); waited >= w.rt.cfg.ConfigPendingTimeout {
				// A sink config that never appears (the sink was
				// refused or deleted) must not pin the message.
				err = sink.Permanent(fmt.Errorf("%w after waiting %s", err, waited.Round(time.Millisecond)))
			}
		}
		switch {
		case err == nil:
			br.success()
			return finished
		case ctx.Err() != nil:
			return stopped
		case errors.Is(err, errSuperseded):
			return superseded
		case errors.Is(err, errHeld):
			// A backfill fills the binding: wait without counting a
			// failure until its hold is cleared or expires, and let its
			// revisions through meanwhile.
			if !held {
				held = true
				w.rt.log.V(1).Info("export deferred by a backfill's hold", app.KeyInventory, w.inv.String(),
					app.KeySink, w.ref.BindingName(), app.KeyRevision, j.revision(), "hold", err.Error())
			}
			if w.backfillPending() {
				return parked
			}
			if !w.sleep(ctx, j, min(retryDelay(w.rt.cfg.RetryInitial, w.rt.cfg.RetryMax, attempt), w.rt.cfg.ClaimTTL/3)) {
				if ctx.Err() == nil && w.backfillPending() {
					return parked
				}
				return w.interrupted(ctx)
			}
			continue
		case errors.Is(err, errClaimed) || errors.Is(err, errClaimLost) || errors.Is(err, errObjectMissing):
			// Another replica writes this binding (or took it over while
			// this one wrote): wait for it without counting a failure; the
			// re-read state usually skips j. An object missing waits
			// likewise for a newer event.
			if !w.sleep(ctx, j, min(retryDelay(w.rt.cfg.RetryInitial, w.rt.cfg.RetryMax, attempt), w.rt.cfg.ClaimTTL/3)) {
				return w.interrupted(ctx)
			}
			continue
		case sink.IsPermanent(err) && !rotated && !errors.Is(err, errConfigPending) && w.rt.configs.rotate(ctx, &w.ref) > 0:
			// Refused credentials may have been rotated since the sink was
			// built: try once more with a sink built from the new Secret.
			rotated = true
			w.rt.metrics.rotated()
			continue
		case sink.IsPermanent(err):
			w.rt.metrics.failed(sc, errorReason(err))
			w.rt.failed(ctx, w, j, err, true)
			return finished
		}
		w.rt.metrics.failed(sc, errorReason(err))
		br.failure(time.Now())
		if attempt == 0 {
			w.rt.failed(ctx, w, j, err, false)
		}
		if !w.sleep(ctx, j, failureDelay(w.rt.cfg.RetryInitial, w.rt.cfg.RetryMax, attempt, err)) {
			return w.interrupted(ctx)
		}
		w.rt.metrics.retried(sc.Type)
	}
}

// interrupted is the outcome of a sleep that did not end in a retry.
func (w *worker) interrupted(ctx context.Context) outcome {
	if ctx.Err() != nil {
		return stopped
	}
	return superseded
}

// errorReason classifies err for NameExportErrors.
func errorReason(err error) string {
	switch {
	case errors.Is(err, egress.ErrDenied):
		return ReasonDenied
	case sink.IsPermanent(err):
		return ReasonPermanent
	}
	return ReasonTransient
}

// sleep waits d and reports whether to try j again: false when ctx ends or
// a newer job supersedes j.
func (w *worker) sleep(ctx context.Context, j *job, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return !w.superseded(j)
		case <-w.wake:
			if w.superseded(j) {
				// Put the signal back for run's loop, which takes the
				// newer job after j is finished.
				select {
				case w.wake <- struct{}{}:
				default:
				}
				return false
			}
		}
	}
}
