package history

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// ErrNotFound is returned when the history holds no matching event.
var ErrNotFound = errors.New("no such snapshot in the history")

// Entry is one stored snapshot event of an inventory.
type Entry struct {
	// Sequence is the event's stream sequence.
	Sequence uint64
	// Revision is the snapshot's revision.
	Revision uint64
	// Time is when the aggregator built the event.
	Time time.Time
	// ItemCount is the snapshot's item count.
	ItemCount int
	// Checksum is the snapshot's checksum.
	Checksum string
	// Reason is why the event was published.
	Reason busv1.SnapshotReason
	// Generation is the inventory's generation the snapshot was built for.
	Generation int64
	// PreviousChecksum is the checksum of the revision before this one.
	PreviousChecksum string
	// InventoryUID is the uid of the inventory that published the event;
	// empty in events of releases before it was stamped.
	InventoryUID string
	// Replay is set on a replayed event (it repeats an older revision).
	Replay bool
	// Bytes is the size of the event message on the bus.
	Bytes int
}

// Stored is a snapshot event with its stream sequence.
type Stored struct {
	// Sequence is the event's stream sequence.
	Sequence uint64
	// Event is the decoded event.
	Event busv1.SnapshotEvent
}

// Last returns the latest event on inv's snapshot subject, or nil when the
// history is empty.
func Last(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName) (*Stored, error) {
	s, err := js.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		return nil, fmt.Errorf("open stream %s: %w", bus.StreamSnapshots, err)
	}
	m, err := s.GetLastMsgForSubject(ctx, bus.SnapshotSubject(inv))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read last snapshot of %s: %w", inv, err)
	}
	var ev busv1.SnapshotEvent
	if err := busv1.Unmarshal(m.Data, &ev); err != nil { // exact large integers
		return nil, fmt.Errorf("decode snapshot event %d of %s: %w", m.Sequence, inv, err)
	}
	return &Stored{Sequence: m.Sequence, Event: ev}, nil
}

// Events returns every event kept on inv's snapshot subject, oldest first,
// envelopes included: a reader that needs only some of them reads Index
// and then At.
func Events(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName) ([]Stored, error) {
	var out []Stored
	err := scan(ctx, js, inv, func(seq uint64, data []byte) error {
		var ev busv1.SnapshotEvent
		if err := busv1.Unmarshal(data, &ev); err != nil { // exact large integers
			return fmt.Errorf("decode snapshot event %d of %s: %w", seq, inv, err)
		}
		out = append(out, Stored{Sequence: seq, Event: ev})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// List returns the history of inv as entries, oldest first (Index).
func List(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName) ([]Entry, error) {
	return Index(ctx, js, inv)
}
