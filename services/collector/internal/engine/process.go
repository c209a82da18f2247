package engine

import (
	"context"
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/failpoint"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/services/collector/internal/informers"
	"kollect.dev/kollect/services/collector/internal/rowstore"
)

// processObject looks at one object in the cache and brings the row of
// every active Target of its GVK in line with it.
func (e *Engine) processObject(ctx context.Context, it item) error {
	store, synced, running := e.cfg.Informers.Store(it.gvk)
	if !running {
		return nil // no Target needs the GVK any more
	}
	var obj *unstructured.Unstructured
	cached, exists, _ := store.GetByKey(it.key)
	if exists {
		if m, ok := cached.(metav1.Object); ok && m.GetUID() == it.uid {
			u, err := informers.AsUnstructured(cached)
			if err != nil {
				return err
			}
			obj = u
		}
	}
	if !exists && !synced {
		// A restarted informer that has not listed everything yet: absence
		// proves nothing. The sweep after its first sync removes the rows
		// of objects that are really gone.
		return nil
	}
	var ns *selection.Namespace
	if obj != nil && obj.GetNamespace() != "" {
		n, _ := e.cfg.Informers.Namespace(obj.GetNamespace())
		ns = &n
	}
	targets := e.activeTargets(it.gvk)
	if it.target != (bus.ConfigRef{}) {
		targets = nil
		if ts := e.target(it.target); ts != nil {
			targets = []*targetState{ts} // apply checks it is still active
		}
	}
	var errs []error
	for _, ts := range targets {
		errs = append(errs, e.apply(ctx, ts, it.gvk, it.uid, obj, ns))
	}
	return errors.Join(errs...)
}

// apply evaluates obj (nil: the object is gone) for one Target and writes or
// deletes its row.
func (e *Engine) apply(ctx context.Context, ts *targetState, gvk schema.GroupVersionKind, uid types.UID,
	obj *unstructured.Unstructured, ns *selection.Namespace) error {
	ts.mu.RLock()
	defer ts.mu.RUnlock()
	if !ts.active() || ts.compiled.GVK != gvk {
		return nil
	}
	key := ts.compiled.Key(string(uid))
	if obj == nil || (ns != nil && !ts.compiled.Namespace(*ns)) {
		// Gone, or in a namespace the Target does not select (most
		// Targets of a kind, one team's each): no evaluation, and a row
		// it had goes.
		return e.drop(ctx, ts, key)
	}
	start := time.Now()
	row, err := ts.compiled.Evaluate(obj, ns)
	e.cfg.Metrics.ExtractionDuration.WithLabelValues(informers.GVKString(gvk)).Observe(time.Since(start).Seconds())
	if err != nil {
		e.cfg.Metrics.ExtractionFailures.WithLabelValues(ts.label).Inc()
		if ts.fail(uid, err.Error()) {
			e.cfg.Status.Mark(ts.ref)
		}
		if errors.Is(err, extract.ErrCELTimeout) {
			// Out of time under CPU pressure, not wrong: keep the row
			// and evaluate again after a backoff (M6).
			return err
		}
		e.cfg.Metrics.Profiles.Forget(ts.label, string(uid))
		return e.deleteRow(ctx, ts, key)
	}
	if row == nil {
		return e.drop(ctx, ts, key)
	}
	if ts.clearFailure(uid) {
		e.cfg.Status.Mark(ts.ref)
	}
	e.cfg.Metrics.Profiles.Observe(ts.label, string(uid), row.Attributes)
	return e.putRow(ctx, ts, *row)
}

// drop removes an object that is gone or no longer selected from a Target.
func (e *Engine) drop(ctx context.Context, ts *targetState, key busv1.RowKey) error {
	if ts.clearFailure(types.UID(key.UID)) {
		e.cfg.Status.Mark(ts.ref)
	}
	e.cfg.Metrics.Profiles.Forget(ts.label, key.UID)
	return e.deleteRow(ctx, ts, key)
}

// putRow sends a row; the rows store reports a put that fails later
// (retryRow) and counts the writes that land.
func (e *Engine) putRow(ctx context.Context, ts *targetState, row busv1.Row) error {
	failpoint.Hit("collector.beforeRowPut")
	wrote, err := e.cfg.Rows.Put(ctx, row, ts.cfg.Generation, ts.compiled.AttributeTypes)
	if wrote {
		failpoint.Hit("collector.afterRowPut") // sent, not yet acknowledged
	}
	var large *rowstore.TooLargeError
	if errors.As(err, &large) {
		// It can never be written as it is: reported like an extraction
		// failure, and no stale row stays behind (M7).
		e.cfg.Metrics.ExtractionFailures.WithLabelValues(ts.label).Inc()
		uid := types.UID(row.UID)
		if ts.fail(uid, cache.NewObjectName(row.Namespace, row.Name).String()+": "+err.Error()) {
			e.cfg.Status.Mark(ts.ref)
		}
		e.cfg.Metrics.Profiles.Forget(ts.label, row.UID)
		return e.deleteRow(ctx, ts, row.Key())
	}
	if err != nil || !wrote {
		return err
	}
	e.cfg.Status.Mark(ts.ref)
	return nil
}

// deleteRow deletes a row; ts is nil for a Target that no longer exists.
func (e *Engine) deleteRow(ctx context.Context, ts *targetState, key busv1.RowKey) error {
	deleted, err := e.cfg.Rows.Delete(ctx, key)
	if err != nil || !deleted {
		return err
	}
	if ts != nil {
		e.cfg.Status.Mark(ts.ref)
	}
	return nil
}

// retryRow queues again, after the store's backoff, the object of a put
// that failed once sent, so that its current content is extracted and put.
// It takes no lock (the store calls it while writers wait for the window):
// processing the object finds which Targets still want it.
func (e *Engine) retryRow(f rowstore.Failure) {
	key := cache.NewObjectName(f.Namespace, f.Name).String()
	e.queue.AddAfter(objectWork(f.GVK, key, types.UID(f.Key.UID)), f.After)
}

// sweep deletes the rows of a Target whose objects are not in its GVK's
// cache (or are in a namespace it no longer selects), once that cache holds
// a full list; when the GVK is gone, every row.
func (e *Engine) sweep(ctx context.Context, it item) error {
	ts := e.target(it.target)
	if ts == nil {
		return nil // deleted: Delete removed its rows
	}
	ts.mu.RLock()
	defer ts.mu.RUnlock()
	if !ts.active() {
		return nil
	}
	store, synced, running := e.cfg.Informers.Store(ts.compiled.GVK)
	if (running && !synced) || (!running && !it.gone) {
		return nil // the Synced or Gone event queues this sweep again
	}
	// A row stays while its object is cached in a namespace the Target
	// still selects: a Target whose namespaces changed had only the
	// objects of its new ones evaluated (enqueueTarget).
	var uids map[types.UID]struct{}
	if running {
		uids = e.selectedUIDs(store, ts.compiled)
	}
	present := func(uid string) bool {
		_, ok := uids[types.UID(uid)]
		return ok
	}
	var errs []error
	for _, k := range e.cfg.Rows.Keys(ts.ref.Namespace, ts.ref.Name) {
		if !present(k.UID) {
			errs = append(errs, e.drop(ctx, ts, k))
			failpoint.Hit("collector.midSweep")
		}
	}
	for _, uid := range ts.failingUIDs() {
		if !present(string(uid)) && ts.clearFailure(uid) {
			e.cfg.Status.Mark(ts.ref)
		}
	}
	e.cfg.Status.Mark(ts.ref)
	return errors.Join(errs...)
}

func (e *Engine) enqueueObject(gvk schema.GroupVersionKind, obj any) {
	if o, ok := obj.(metav1.Object); ok {
		e.queue.Add(objectWork(gvk, cache.MetaObjectToName(o).String(), o.GetUID()))
	}
}
