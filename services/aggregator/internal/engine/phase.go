package engine

import "time"

// phase is what an inventory's next check does. A new inventory is loading;
// every phase but idle has a check scheduled at settleAt once the rebuild
// ended.
type phase uint8

const (
	// loading: read the inventory's last event back from its subject (a
	// new inventory, a conflict with another writer, or a body lost with
	// the history), then settle, or delete when its config went meanwhile.
	loading phase = iota
	// settling: publish the snapshot when it or the generation changed
	// since the last event.
	settling
	// idle: nothing is pending; periodic events go when due.
	idle
	// deleting: publish the final, empty event, then forget the inventory.
	deleting
)

// periodicDue reports whether st sends periodic events when their time
// comes: it is idle (so read back, with no change pending), has published,
// and is not suspended.
func (st *invState) periodicDue() bool {
	return st.phase == idle && st.cfg != nil && !st.cfg.Suspend && st.last.revision != 0
}

// wakeAt is when st next needs the engine: its pending check, or its
// earliest periodic event.
func (st *invState) wakeAt() (time.Time, bool) {
	if st.phase != idle {
		return st.settleAt, !st.settleAt.IsZero()
	}
	if !st.periodicDue() {
		return time.Time{}, false
	}
	var at time.Time
	for _, t := range st.due {
		if at.IsZero() || t.Before(at) {
			at = t
		}
	}
	return at, !at.IsZero()
}
