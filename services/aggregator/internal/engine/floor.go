package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// StatusFloorMargin is added to an inventory's status floor (revisionFloor)
// when the revision sequence continues from it alone, the snapshot history
// and the export state both lost: the status trails what sinks hold by its
// coalescing (about a second, a handful of revisions at most), and a
// sequence that repeated a revision a sink holds would give that number
// two contents. The gap shows where the bus lost its data.
const StatusFloorMargin = 1000

// exportFloor is the highest revision any binding of inv has delivered,
// from the export-state bucket (which, unlike the snapshot subject, has no
// maximum age). A revision sequence continues above it even when the
// subject's history is gone (aged out, purged, lost with the bus storage),
// so that no sink, which never applies an older revision over a newer one,
// silently skips what comes next.
func exportFloor(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName) (uint64, error) {
	states, err := exportStates(ctx, js, inv)
	var floor uint64
	for _, st := range states {
		floor = max(floor, st.Revision)
	}
	return floor, err
}

// exportStates reads the export state of every binding of inv that ever
// delivered, by sink.
func exportStates(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName) (map[busv1.SinkRef]busv1.ExportState, error) {
	kv, err := js.KeyValue(ctx, bus.BucketExportState)
	if err != nil {
		return nil, fmt.Errorf("open KV bucket %s: %w", bus.BucketExportState, err)
	}
	keys, err := kv.ListKeysFiltered(ctx, bus.ExportStateFilter(inv))
	if err != nil {
		return nil, fmt.Errorf("list export state of %s: %w", inv, err)
	}
	out := map[busv1.SinkRef]busv1.ExportState{}
	for k := range keys.Keys() {
		_, ref, err := bus.ParseExportStateKey(k)
		if err != nil {
			continue // not a key of this layout: it names no binding
		}
		e, err := kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read export state %s: %w", k, err)
		}
		var st busv1.ExportState
		if json.Unmarshal(e.Value(), &st) == nil {
			out[ref] = st
		}
	}
	return out, nil
}

// configFloor is the inventory's revisionFloor: the highest of the config
// the engine follows and the entry as it is now, read again because the
// watch may still follow a config bucket that was re-created (until the
// stream guard notices) while control already put the current floor.
func (e *Engine) configFloor(ctx context.Context, st *invState) uint64 {
	var floor uint64
	if st.cfg != nil {
		floor = st.cfg.RevisionFloor
	}
	kv, err := e.js.KeyValue(ctx, bus.BucketConfig)
	if err != nil {
		return floor
	}
	kind := busv1.KindInventory
	if st.name.Namespace == "" {
		kind = busv1.KindClusterInventory
	}
	ent, err := kv.Get(ctx, bus.ConfigKey(bus.ConfigRef{Kind: kind, Namespace: st.name.Namespace, Name: st.name.Name}))
	if err != nil {
		return floor
	}
	var cfg busv1.InventoryConfig
	if json.Unmarshal(ent.Value(), &cfg) == nil {
		floor = max(floor, cfg.RevisionFloor)
	}
	return floor
}
