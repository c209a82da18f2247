package parts

import (
	"sync"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// HighWater remembers, per cluster and inventory, the revision and checksum
// an event sink last sent, so that an older revision is ignored and a
// repeated one is a no-op (sink.Sink's contract). It lives in memory: a new
// sink (a restart, a changed config) starts empty and sends again what it is
// given; event sinks document how the peer absorbs such duplicates. It is
// safe for concurrent use.
type HighWater struct {
	mu   sync.Mutex
	last map[mark]sent
}

type mark struct {
	cluster   string
	inventory busv1.NamespacedName
}

type sent struct {
	revision uint64
	checksum string
}

// Skip reports whether s needs no sending: neither a replay nor a repair
// (sink.Snapshot.Repair), and older than the last snapshot sent for its
// inventory or the same revision and checksum.
func (h *HighWater) Skip(s sink.Snapshot) bool {
	if s.Replay || s.Repair {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	last, ok := h.last[key(s.Envelope)]
	if !ok {
		return false
	}
	e := s.Envelope
	return e.Revision < last.revision || e.Revision == last.revision && e.Checksum == last.checksum
}

// Sent records that s was sent. A replay moves the mark back to the
// replayed revision, so that the next regular snapshot, even a periodic
// re-export of the revision before the replay, is sent again.
func (h *HighWater) Sent(s sink.Snapshot) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.last == nil {
		h.last = map[mark]sent{}
	}
	h.last[key(s.Envelope)] = sent{revision: s.Envelope.Revision, checksum: s.Envelope.Checksum}
}

func key(e busv1.Envelope) mark { return mark{cluster: e.Cluster, inventory: e.Inventory} }
