package engine

import (
	"context"

	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// Losing NATS data must never wipe a sink. Two markers say when the buckets
// can be trusted (pkg/bus):
//
//   - bus.ConfigCompleteKey, written by control after a full pass: while it
//     is missing, a missing inventory config may be a lost one, so deleting
//     an inventory (its final empty snapshot) and adopting orphans wait.
//   - bus.RowsSyncedShardKey, one per collector shard, written by the
//     collector replica holding the shard after its initial sync: while
//     any of Options.CollectorShards is missing, the rows bucket may be
//     refilling, so no snapshot built from rows is published. Periodic
//     events, which re-send the last published body, and final events of
//     deleted inventories still go. Markers of another shard count (a
//     collector being resharded) and the single marker of earlier releases
//     (bus.RowsSyncedKey) count for nothing.
//
// A fresh install gets both markers once control and the collector have
// done their first pass.

// Marker bucket labels.
const (
	heldRows   = "rows"
	heldConfig = "config"
)

// applyMarker handles a marker key of either bucket; it reports whether ent
// was one.
func (e *Engine) applyMarker(ctx context.Context, ent jetstream.KeyValueEntry) bool {
	if !bus.IsMarkerKey(ent.Key()) {
		return false
	}
	present := ent.Operation() == jetstream.KeyValuePut
	if n, i, ok := bus.ParseRowsSyncedShardKey(ent.Key()); ok && n == e.collectorShards() {
		was := e.rowsSynced
		if e.syncedShards == nil {
			e.syncedShards = map[int]bool{}
		}
		if present {
			e.syncedShards[i] = true
		} else {
			delete(e.syncedShards, i)
		}
		e.rowsSynced = len(e.syncedShards) == n
		e.m.holding(heldRows, !e.rowsSynced)
		if e.rowsSynced && !was && e.ready {
			e.opts.Log.Info("the rows bucket is synced again; publishing the changes held meanwhile")
			for _, st := range e.invs {
				if st.cfg != nil {
					e.markDirty(st)
				}
			}
		}
		return true
	} else if ok && present {
		e.opts.Log.Info("a rows-synced marker of another collector shard count; it does not count",
			"key", ent.Key(), "collectorShards", e.collectorShards())
	}
	if ent.Key() == bus.ConfigCompleteKey {
		was := e.configComplete
		e.configComplete = present
		e.m.holding(heldConfig, !present)
		if present && !was && e.ready {
			e.applyHeldDeletions()
			e.adoptOrphans(ctx)
		}
	}
	return true
}

// collectorShards is the number of rows-synced markers a synced rows
// bucket holds.
func (e *Engine) collectorShards() int {
	if e.opts.CollectorShards > 0 {
		return e.opts.CollectorShards
	}
	return bus.DefaultCollectorShards
}

// holdDeletion keeps an inventory whose config entry went while the config
// bucket is incomplete; it reports whether it did.
func (e *Engine) holdDeletion(st *invState) bool {
	if e.configComplete {
		return false
	}
	if !st.held {
		e.opts.Log.Info("config bucket incomplete; holding the deletion of an inventory", "inventory", st.name.String())
	}
	st.held = true
	return true
}

// applyHeldDeletions deletes the inventories whose config is still missing
// now that the config bucket is complete.
func (e *Engine) applyHeldDeletions() {
	for name, st := range e.invs {
		if !st.held {
			continue
		}
		st.held = false
		e.deleteInventory(name, st)
	}
}

// rebuiltFrom are the streams of the rows and config buckets the engine
// rebuilds from; Run ends with bus.ErrReset when either is missing at the
// start or not the one it rebuilt from later.
var rebuiltFrom = []string{bus.KVStreamName(bus.BucketRows), bus.KVStreamName(bus.BucketConfig)}

// holdsFor reports whether a publish of st's rows must wait for the rows
// bucket's marker.
func (e *Engine) holdsFor(st *invState) bool {
	return !st.deleted && !e.rowsSynced
}

// deleteInventory applies the deletion of an inventory's config entry.
func (e *Engine) deleteInventory(name busv1.NamespacedName, st *invState) {
	if st.cfg.DeletionPolicy != busv1.DeletionDelete {
		e.drop(name)
		return
	}
	st.deleted, st.due = true, nil
	if st.phase != loading {
		st.phase = deleting
	}
	e.markDirty(st)
}
