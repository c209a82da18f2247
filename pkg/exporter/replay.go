package exporter

import (
	"context"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// skip reports whether ev needs no write given the binding's export state
// st: a replay is always written; otherwise an event older than the state,
// or at the state's revision and checksum while the sink holds that
// revision (no replay since), is already delivered.
func skip(st *busv1.ExportState, ev *busv1.SnapshotEvent) bool {
	if ev.Replay != nil || st == nil {
		return false
	}
	if st.Revision > ev.Revision {
		return true
	}
	return st.Revision == ev.Revision && st.Checksum == ev.Checksum && st.Replayed == nil
}

// recordReplay records, after replay ev was written, that the sink holds
// the replayed snapshot: Revision and Checksum stay where they were (never
// backwards) and Replayed is set, so the next regular event at or above
// Revision is written again and no delta is applied on top of the replayed
// snapshot. On a compare-and-set conflict another write got there first and
// its state is kept. No status report is published: the binding's status
// keeps the newest revision delivered.
func (rt *runtime) recordReplay(ctx context.Context, key string, base busv1.ExportState, rev uint64, ev *busv1.SnapshotEvent, now time.Time) error {
	next := base
	next.Replayed = &busv1.ReplayedExport{Revision: ev.Revision, Checksum: ev.Checksum, ExportedAt: now}
	return rt.recordState(ctx, key, next, true, rev)
}
