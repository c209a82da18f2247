package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/target"
	"kollect.dev/kollect/services/collector/internal/informers"
)

// Ref returns the config reference of a Target's entry.
func Ref(cfg busv1.TargetConfig) bus.ConfigRef {
	return bus.ConfigRef{Kind: cfg.Kind, Namespace: cfg.Namespace, Name: cfg.Name}
}

// Reset makes cfgs the whole set of Targets. When complete (the config
// bucket holds bus.ConfigCompleteKey), Targets not in cfgs are removed with
// their rows, and so are rows of Targets nobody configures (deleted while
// the collector was down); otherwise those deletions are held until the
// marker appears (Complete), since a missing entry may be a lost one.
func (e *Engine) Reset(ctx context.Context, cfgs []busv1.TargetConfig, complete bool) error {
	want := make(map[bus.ConfigRef]bool, len(cfgs))
	for _, cfg := range cfgs {
		want[Ref(cfg)] = true
	}
	e.holdMu.Lock()
	e.desired, e.complete = want, complete
	e.holdMu.Unlock()
	if err := e.loadOwned(ctx, cfgs); err != nil {
		return err
	}
	var errs []error
	if complete {
		errs = append(errs, e.applyDeletions(ctx))
	}
	for _, cfg := range cfgs {
		errs = append(errs, e.Put(ctx, cfg))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	e.configured.Store(true)
	e.cfg.Log.Info("targets loaded", app.KeyCount, len(cfgs), "configComplete", complete)
	return nil
}

// loadOwned loads the rows of the Targets of cfgs in the shards the engine
// works on, in a few batches rather than one by one in Put.
func (e *Engine) loadOwned(ctx context.Context, cfgs []busv1.TargetConfig) error {
	e.ownMu.Lock()
	defer e.ownMu.Unlock()
	var mine []busv1.NamespacedName
	for _, cfg := range cfgs {
		if ref := Ref(cfg); e.owns(ref) {
			mine = append(mine, nameOf(ref))
		}
	}
	if err := e.cfg.Rows.Load(ctx, mine); err != nil {
		return fmt.Errorf("load the rows of the targets: %w", err)
	}
	return nil
}

// Put adds or changes a Target: its GVK's informer is told what it needs,
// its objects are evaluated again and its rows swept once the cache is full.
// A Target of a shard the engine does not work on is only recorded.
func (e *Engine) Put(ctx context.Context, cfg busv1.TargetConfig) error {
	ref := Ref(cfg)
	e.want(ref, true)
	compiled, err := target.Compile(cfg, e.cfg.Extract)
	if err != nil {
		e.cfg.Log.Error(err, "target does not compile; keeping its rows", app.KeyTarget, ref.Name,
			app.KeyNamespace, ref.Namespace, app.KeyGeneration, cfg.Generation)
	}
	e.ownMu.Lock()
	defer e.ownMu.Unlock()
	owned := e.owns(ref)
	e.mu.Lock()
	ts, ok := e.targets[ref]
	if !ok {
		ts = newTargetState(ref)
		e.targets[ref] = ts
	}
	delete(e.gone, ref)
	e.mu.Unlock()
	ts.mu.RLock()
	same, wasOwned := ok && reflect.DeepEqual(ts.cfg, cfg), ts.owned
	ts.mu.RUnlock()
	if same && wasOwned == owned {
		return nil
	}
	if owned && !wasOwned {
		if err := e.cfg.Rows.Load(ctx, []busv1.NamespacedName{nameOf(ref)}); err != nil {
			return fmt.Errorf("load rows of %s %s: %w", ref.Kind, bus.ConfigKey(ref), err)
		}
	}
	e.change(ts, func() {
		if ts.cfg.Generation != cfg.Generation || ts.cfg.ProfileGeneration != cfg.ProfileGeneration {
			ts.resetFailures()
		}
		ts.cfg, ts.compiled, ts.invalid, ts.owned = cfg, compiled, err, owned
	})
	if compiled != nil && owned {
		// An entry that does not compile keeps its gauges, as it keeps
		// its rows.
		e.cfg.Metrics.Profiles.Define(ts.label, compiled.Metrics)
	}
	e.cfg.Log.V(1).Info("target applied", app.KeyTarget, ts.label, app.KeyGeneration, cfg.Generation, "owned", owned)
	e.cfg.Status.Mark(ref)
	return nil
}

// change applies f to ts under its lock, then brings the GVK index, the
// informers and the queue in line: a Target that became active (or changed
// while active) has its objects evaluated and its rows swept; the informer
// of a GVK no active Target needs any more stops. Once change returns no
// worker writes for a Target that is no longer active.
func (e *Engine) change(ts *targetState, f func()) {
	e.mu.Lock()
	ts.mu.Lock()
	oldGVK, wasActive := ts.gvk(), ts.active()
	f()
	newGVK, active := ts.gvk(), ts.active()
	ts.mu.Unlock()
	if wasActive {
		delete(e.byGVK[oldGVK], ts.ref)
	}
	if active {
		if e.byGVK[newGVK] == nil {
			e.byGVK[newGVK] = map[bus.ConfigRef]*targetState{}
		}
		e.byGVK[newGVK][ts.ref] = ts
	}
	e.mu.Unlock()

	if wasActive && (oldGVK != newGVK || !active) {
		e.require(oldGVK)
	}
	if active {
		e.require(newGVK)
		e.enqueueTarget(ts)
		e.queue.Add(sweepWork(ts.ref, false))
	}
}

// Delete removes a Target and every row it has, or holds the removal until
// the config is complete again (Complete).
func (e *Engine) Delete(ctx context.Context, ref bus.ConfigRef) error {
	if !e.want(ref, false) {
		e.cfg.Log.Info("config bucket incomplete; holding the removal of a target's rows",
			app.KeyTarget, ref.Name, app.KeyNamespace, ref.Namespace)
		return nil
	}
	return e.remove(ctx, ref)
}

// remove removes a Target and every row it has; the rows of a Target of a
// shard the engine does not work on are left to the shard's holder, or to
// the next one (see Deleted).
func (e *Engine) remove(ctx context.Context, ref bus.ConfigRef) error {
	e.ownMu.Lock()
	defer e.ownMu.Unlock()
	owned := e.owns(ref)
	e.mu.Lock()
	ts := e.targets[ref]
	delete(e.targets, ref)
	if !owned {
		e.gone[ref] = true
	}
	e.mu.Unlock()
	if !owned {
		e.cfg.Log.V(1).Info("target deleted; the holder of its shard purges its rows", app.KeyTarget, ref.Name,
			app.KeyNamespace, ref.Namespace)
	}
	if ts != nil {
		ts.mu.Lock()
		gvk, wasActive := ts.gvk(), ts.active()
		ts.removed = true
		ts.mu.Unlock()
		if wasActive {
			e.mu.Lock()
			delete(e.byGVK[gvk], ref)
			e.mu.Unlock()
			e.require(gvk)
		}
		e.cfg.Metrics.Profiles.Define(ts.label, nil)
		e.cfg.Status.Mark(ref)
	}
	return e.purge(ctx, ref)
}

// purge deletes every row of a Target.
func (e *Engine) purge(ctx context.Context, ref bus.ConfigRef) error {
	var errs []error
	for _, k := range e.cfg.Rows.Keys(ref.Namespace, ref.Name) {
		errs = append(errs, e.deleteRow(ctx, nil, k))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("delete rows of %s %s: %w", ref.Kind, bus.ConfigKey(ref), err)
	}
	return nil
}

// require tells the informer manager what the active Targets of gvk need,
// or releases its informer when none is left. It holds e.mu for writing
// throughout: it may delete gvk's entry, and two calls for one GVK must
// reach the manager in the order they read byGVK.
func (e *Engine) require(gvk schema.GroupVersionKind) {
	e.mu.Lock()
	defer e.mu.Unlock()
	targets := e.byGVK[gvk]
	if len(targets) == 0 {
		delete(e.byGVK, gvk)
		e.cfg.Informers.Remove(gvk)
		return
	}
	e.cfg.Informers.Set(gvk, requirement(targets))
}

// requirement is what a GVK's informer must hold for its Targets: the union
// of the fields they read, the namespaces they name when every one names
// its namespaces (includedNamespaces without a namespaceSelector), and
// their label or field selector when all select objects by the same one.
func requirement(targets map[bus.ConfigRef]*targetState) informers.Requirement {
	req := informers.Requirement{Fields: extract.NewFieldSet()}
	static, nss := true, map[string]struct{}{}
	var f serverFilter
	for _, ts := range targets {
		ts.mu.RLock()
		c := ts.compiled
		ts.mu.RUnlock()
		if c == nil {
			continue
		}
		if c.NeedsWholeObject() {
			req.Whole = true
		} else {
			req.Fields.Union(c.Fields())
		}
		names, ok := c.Selector().StaticNamespaces()
		static = static && ok
		for _, n := range names {
			nss[n] = struct{}{}
		}
		f.add(c.Selector())
	}
	if static && len(nss) > 0 {
		req.Namespaces = slices.Sorted(maps.Keys(nss))
	}
	if f.shared {
		req.LabelSelector, req.FieldSelector = f.label, f.field
	}
	return req
}

// enqueueTarget queues, for ts alone, every cached object of its GVK in a
// namespace it selects (cluster-scoped objects when its access allows).
// The work of a Target added or changed grows with the objects it may
// select, not with every object of the GVK times every Target of it; its
// rows in namespaces it no longer selects go in its sweep.
func (e *Engine) enqueueTarget(ts *targetState) {
	ts.mu.RLock()
	compiled, active := ts.compiled, ts.active()
	ts.mu.RUnlock()
	if !active {
		return
	}
	store, _, ok := e.cfg.Informers.Store(compiled.GVK)
	if !ok {
		return
	}
	e.eachSelected(store, compiled, func(o metav1.Object) {
		e.queue.Add(targetObjectWork(compiled.GVK, cache.MetaObjectToName(o).String(), o.GetUID(), ts.ref))
	})
}

// selectedUIDs are the uids of the cached objects c may select.
func (e *Engine) selectedUIDs(store informers.Cache, c *target.Compiled) map[types.UID]struct{} {
	out := map[types.UID]struct{}{}
	e.eachSelected(store, c, func(o metav1.Object) { out[o.GetUID()] = struct{}{} })
	return out
}

// eachSelected calls f with every object of store in a namespace c selects,
// reading only those namespaces' objects.
func (e *Engine) eachSelected(store informers.Cache, c *target.Compiled, f func(metav1.Object)) {
	for _, name := range store.ListIndexFuncValues(cache.NamespaceIndex) {
		if !e.selectsNamespace(c, name) {
			continue
		}
		objs, err := store.ByIndex(cache.NamespaceIndex, name)
		if err != nil {
			continue
		}
		for _, obj := range objs {
			if o, ok := obj.(metav1.Object); ok {
				f(o)
			}
		}
	}
}

// selectsNamespace reports whether c may select objects of namespace name
// ("" for cluster-scoped objects).
func (e *Engine) selectsNamespace(c *target.Compiled, name string) bool {
	if name == "" {
		return c.Config.Access.AllowsNamespace("")
	}
	ns, _ := e.cfg.Informers.Namespace(name)
	return c.Namespace(ns)
}
