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

// exportFloor is the highest revision any binding of inv has delivered,
// from the export-state bucket (which, unlike the snapshot subject, has no
// maximum age). A revision sequence continues above it even when the
// subject's history is gone (aged out, purged, lost with the bus storage),
// so that no sink, which never applies an older revision over a newer one,
// silently skips what comes next.
func exportFloor(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName) (uint64, error) {
	kv, err := js.KeyValue(ctx, bus.BucketExportState)
	if err != nil {
		return 0, fmt.Errorf("open KV bucket %s: %w", bus.BucketExportState, err)
	}
	keys, err := kv.ListKeysFiltered(ctx, bus.ExportStateFilter(inv))
	if err != nil {
		return 0, fmt.Errorf("list export state of %s: %w", inv, err)
	}
	var floor uint64
	for k := range keys.Keys() {
		e, err := kv.Get(ctx, k)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("read export state %s: %w", k, err)
		}
		var st busv1.ExportState
		if json.Unmarshal(e.Value(), &st) == nil {
			floor = max(floor, st.Revision)
		}
	}
	return floor, nil
}
