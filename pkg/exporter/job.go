package exporter

import (
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// maxChainEvents caps the events one job composes: past it the older chain
// is dropped and the newest event is written in full from its manifest.
const maxChainEvents = 64

// job is one event to deliver to one binding, or a chain of consecutive
// events whose deltas compose into one write: each event's delta applies to
// the snapshot of the one before it.
type job struct {
	d *delivery // the newest event, the one written and acknowledged after
	// prev are the older events of the chain, oldest first, already
	// finished: their deltas are kept (in memory or as objects), and the
	// newest event references the whole snapshot, so that a crash loses
	// the composition, never data.
	prev    []*delivery
	binding busv1.Binding
	missing int // attempts that found an object of the event missing
}

func (j *job) revision() uint64 { return j.d.ev.Revision }

// replay reports whether j re-delivers a historical snapshot on request.
func (j *job) replay() bool { return j.d.ev.Replay != nil }

// backfill reports whether j is a revision of a backfill: the binding's
// export state holds regular events off while its backfill runs, so a
// regular event waits behind it rather than replacing it (worker.offer).
func (j *job) backfill() bool { return j.replay() && j.d.ev.Replay.Backfill }

// events returns the chain's deliveries, oldest first.
func (j *job) events() []*delivery { return append(slices.Clone(j.prev), j.d) }

// first is the chain's oldest delivery.
func (j *job) first() *delivery {
	if len(j.prev) > 0 {
		return j.prev[0]
	}
	return j.d
}

// finish finishes the newest delivery, the only one not finished yet.
func (j *job) finish() { j.d.finish() }

// chain returns the job delivering older's events and then newer's as one
// chain, or nil when they do not chain: either is a replay or a deletion,
// newer's oldest event carries no delta or an inline delta on another base,
// or the chain would exceed maxChainEvents. A delta held as an object is
// assumed to chain; the export checks every base once the deltas are loaded
// and writes the snapshot in full when one does not match.
//
// The caller finishes older.d, which the chain keeps for its delta only,
// as it would finish a dropped event: so a binding that keeps failing holds
// at most two unacknowledged messages whatever its chain's length, as
// before chains existed, and never uses up the consumer's MaxAckPending.
func chain(older, newer *job) *job {
	if len(older.prev)+len(newer.prev)+2 > maxChainEvents || !linked(older.d.ev, newer.first().ev) {
		return nil
	}
	prev := make([]*delivery, 0, len(older.prev)+len(newer.prev)+1)
	prev = append(append(append(prev, older.prev...), older.d), newer.prev...)
	return &job{d: newer.d, prev: prev, binding: newer.binding}
}

// linked reports whether newer's delta may apply to older's snapshot.
func linked(older, newer *busv1.SnapshotEvent) bool {
	regular := func(ev *busv1.SnapshotEvent) bool { return ev.Replay == nil && ev.Reason != busv1.ReasonDeleted }
	switch {
	case !regular(older) || !regular(newer) || newer.Revision <= older.Revision:
		return false
	case newer.Delta != nil:
		return newer.Delta.BaseRevision == older.Revision && newer.Delta.BaseChecksum == older.Checksum
	}
	return newer.DeltaRef != nil
}
