package exporter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// errHeld is the transient error of an event whose binding a running
// backfill holds (busv1.ExportState.Hold): the worker parks it without
// counting a failure while the backfill's replay events go through, and
// writes it once the hold is cleared or expired.
var errHeld = errors.New("binding is held by a running backfill")

// heldOff returns the hold that defers ev on the binding's state st at
// now: a live hold, unless ev is a replay of the hold's UID. Nil when ev
// may be written.
func heldOff(st *busv1.ExportState, ev *busv1.SnapshotEvent, now time.Time) *busv1.ExportHold {
	if st == nil || st.Hold == nil || !now.Before(st.Hold.Expires) {
		return nil
	}
	if ev.Replay != nil && ev.Replay.UID == st.Hold.UID {
		return nil
	}
	return st.Hold
}

// heldError is errHeld naming the hold.
func heldError(h *busv1.ExportHold) error {
	return fmt.Errorf("%w (%s, until %s)", errHeld, h.Replay, h.Expires.Format(time.RFC3339))
}

// updateOwn writes st over the state at KV revision rev while the stored
// claim is this replica's: on a compare-and-set conflict that leaves this
// replica's claim in place (the aggregator set, renewed or cleared a hold,
// keeping the claim) it takes the stored hold into st and tries again. It
// returns the KV revision written and st as written; any other conflict
// is returned as is.
func (rt *runtime) updateOwn(ctx context.Context, key string, st busv1.ExportState, rev uint64) (uint64, busv1.ExportState, error) {
	var err error
	for range 5 {
		var b []byte
		if b, err = json.Marshal(st); err != nil {
			return 0, st, fmt.Errorf("encode export state %s: %w", key, err)
		}
		var n uint64
		if n, err = rt.state.Update(ctx, key, b, rev); err == nil {
			return n, st, nil
		}
		if !casConflict(err) {
			return 0, st, err
		}
		cur, curRev, rerr := rt.readState(ctx, key)
		if rerr != nil || !rt.owns(cur) {
			return 0, st, err
		}
		st.Hold, rev = cur.Hold, curRev
	}
	return 0, st, err
}

// owns reports whether the stored state st carries this replica's claim.
func (rt *runtime) owns(st *busv1.ExportState) bool {
	return st != nil && st.Claim != nil && st.Claim.Owner == rt.id
}
