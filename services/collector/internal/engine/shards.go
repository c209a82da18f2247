package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/shard"
	"kollect.dev/kollect/services/collector/internal/rowstore"
)

// A collector replica works on the Targets of the shards it holds
// (pkg/shard): a Target is in shard shard.Of(TargetKey, Shards). The engine
// keeps every Target's config, but only the owned ones are active: their
// rows are loaded, written, swept and reported. Informers stay one per GVK,
// running while any owned Target needs them.

// TargetKey returns the key a Target is placed by: <namespace>/<name>, or
// /<name> for a ClusterTarget (the empty namespace token of its row keys).
func TargetKey(namespace, name string) string { return namespace + "/" + name }

// ShardOf returns the shard of a Target among n.
func ShardOf(namespace, name string, n int) int { return shard.Of(TargetKey(namespace, name), n) }

// owns reports whether the engine works on ref's shard.
func (e *Engine) owns(ref bus.ConfigRef) bool {
	if e.cfg.Shards <= 0 {
		return true
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.held[ShardOf(ref.Namespace, ref.Name, e.cfg.Shards)]
}

func nameOf(ref bus.ConfigRef) busv1.NamespacedName {
	return busv1.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
}

// inShard returns the configured Targets of shard i and the Targets the
// rows store holds rows of in it.
func (e *Engine) inShard(i int) ([]*targetState, []busv1.NamespacedName) {
	var states []*targetState
	var names []busv1.NamespacedName
	e.mu.RLock()
	for ref, ts := range e.targets {
		if ShardOf(ref.Namespace, ref.Name, e.cfg.Shards) == i {
			states = append(states, ts)
			names = append(names, nameOf(ref))
		}
	}
	for ref := range e.gone {
		if ShardOf(ref.Namespace, ref.Name, e.cfg.Shards) == i {
			names = append(names, nameOf(ref))
		}
	}
	e.mu.RUnlock()
	for _, t := range e.cfg.Rows.Targets() {
		if ShardOf(t.Namespace, t.Name, e.cfg.Shards) == i && !slices.Contains(names, t) {
			names = append(names, t)
		}
	}
	return states, names
}

// Acquire starts work on shard i: it loads the rows of the shard's
// Targets, then evaluates their objects and sweeps their rows like a
// restarted collector (rows whose content is unchanged are not written
// again). InitialSyncDone turns true once that is done.
func (e *Engine) Acquire(ctx context.Context, i int) error {
	if e.cfg.Shards <= 0 {
		return nil
	}
	e.ownMu.Lock()
	defer e.ownMu.Unlock()
	e.mu.Lock()
	e.held[i] = true
	e.mu.Unlock()
	states, names := e.inShard(i)
	if err := e.cfg.Rows.Load(ctx, names); err != nil {
		e.mu.Lock()
		delete(e.held, i)
		e.mu.Unlock()
		return fmt.Errorf("load the rows of shard %d: %w", i, err)
	}
	e.mu.Lock()
	for ref := range e.gone {
		if ShardOf(ref.Namespace, ref.Name, e.cfg.Shards) == i {
			delete(e.gone, ref) // loaded: purged below or once the config is complete
		}
	}
	e.mu.Unlock()
	for _, ts := range states {
		e.change(ts, func() { ts.owned = true })
		ts.mu.RLock()
		compiled := ts.compiled
		ts.mu.RUnlock()
		if compiled != nil {
			e.cfg.Metrics.Profiles.Define(ts.label, compiled.Metrics)
		}
		e.cfg.Status.Mark(ts.ref)
	}
	if e.ConfigComplete() {
		return e.purgeUnconfigured(ctx, i)
	}
	return nil
}

// Deleted is told Targets that may have been deleted without the engine
// seeing it: those the rows bucket holds rows of when a term starts (a
// Target deleted while no replica ran, or with the config bucket lost).
// The engine loads the rows of those in its shards, purged once the config
// is complete unless configured; it keeps the others, unless configured
// meanwhile, for when it takes their shard.
func (e *Engine) Deleted(ctx context.Context, refs []bus.ConfigRef) error {
	e.ownMu.Lock()
	var mine []busv1.NamespacedName
	for _, ref := range refs {
		if e.owns(ref) {
			mine = append(mine, nameOf(ref))
			continue
		}
		e.mu.Lock()
		if _, ok := e.targets[ref]; !ok {
			e.gone[ref] = true
		}
		e.mu.Unlock()
	}
	err := e.cfg.Rows.Load(ctx, mine) // applyDeletions purges them
	e.ownMu.Unlock()
	if err != nil {
		return fmt.Errorf("load the rows of deleted targets: %w", err)
	}
	return nil
}

// purgeUnconfigured purges the rows of the Targets of shard i nobody
// configures.
func (e *Engine) purgeUnconfigured(ctx context.Context, i int) error {
	e.holdMu.Lock()
	desired := maps.Clone(e.desired)
	e.holdMu.Unlock()
	var errs []error
	for _, t := range e.cfg.Rows.Targets() {
		ref := RefOf(t)
		if ShardOf(t.Namespace, t.Name, e.cfg.Shards) == i && !desired[ref] {
			e.cfg.Log.Info("purging the rows of a target nobody configures", app.KeyTarget, ref.Name,
				app.KeyNamespace, ref.Namespace)
			errs = append(errs, e.purge(ctx, ref))
		}
	}
	return errors.Join(errs...)
}

// RefOf returns the config reference of the Target of a row.
func RefOf(t busv1.NamespacedName) bus.ConfigRef {
	if t.Namespace == "" {
		return bus.ConfigRef{Kind: busv1.KindClusterTarget, Name: t.Name}
	}
	return bus.ConfigRef{Kind: busv1.KindTarget, Namespace: t.Namespace, Name: t.Name}
}

// Release stops work on shard i: once it returns no row of the shard's
// Targets is written by this engine or awaits its ack, and the rows store
// holds none of them. The replica taking the shard next loads them again.
func (e *Engine) Release(ctx context.Context, i int) error {
	if e.cfg.Shards <= 0 {
		return nil
	}
	e.ownMu.Lock()
	defer e.ownMu.Unlock()
	e.mu.Lock()
	delete(e.held, i)
	e.mu.Unlock()
	states, names := e.inShard(i)
	for _, ts := range states {
		e.change(ts, func() { ts.owned = false })
		ts.resetFailures()
		e.cfg.Metrics.Profiles.Define(ts.label, nil)
		e.cfg.Status.Mark(ts.ref) // forgets its report: the new owner reports
	}
	e.cfg.Rows.Forget(names)
	if err := e.cfg.Rows.Flush(ctx); err != nil && !errors.Is(err, rowstore.ErrClosed) {
		return fmt.Errorf("wait for the writes of shard %d: %w", i, err)
	}
	return nil
}

// Held returns the shards the engine works on, in order.
func (e *Engine) Held() []int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]int, 0, len(e.held))
	for i := range e.held {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// OwnedTargets returns the number of Targets the engine works on.
func (e *Engine) OwnedTargets() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	n := 0
	for _, ts := range e.targets {
		ts.mu.RLock()
		if ts.owned && !ts.removed {
			n++
		}
		ts.mu.RUnlock()
	}
	return n
}
