package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// head is the part of a snapshot event Scan decodes: everything but the
// envelope and the delta, which encoding/json skips without allocating.
type head struct {
	Revision         uint64               `json:"revision"`
	Generation       int64                `json:"generation"`
	Checksum         string               `json:"checksum"`
	PreviousChecksum string               `json:"previousChecksum"`
	ItemCount        int                  `json:"itemCount"`
	CreatedAt        time.Time            `json:"createdAt"`
	Reason           busv1.SnapshotReason `json:"reason"`
	InventoryUID     string               `json:"inventoryUID"`
	Replay           *busv1.Replay        `json:"replay"`
}

// Scan calls fn with the entry of every event kept on inv's snapshot
// subject, oldest first, reading the subject through one ordered consumer
// that buffers at most scanBuffer messages: its memory is a few events,
// whatever the history holds. An error from fn stops the scan and is
// returned.
func Scan(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName, fn func(Entry) error) error {
	return scan(ctx, js, inv, func(seq uint64, data []byte) error {
		e, err := entryOf(seq, data)
		if err != nil {
			return fmt.Errorf("decode snapshot event %d of %s: %w", seq, inv, err)
		}
		return fn(e)
	})
}

// scan calls fn with the stream sequence and data of every message on
// inv's snapshot subject, oldest first.
func scan(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName, fn func(seq uint64, data []byte) error) error {
	stream, err := js.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		return fmt.Errorf("read history of %s: %w", inv, err)
	}
	end, err := lastSeq(ctx, stream, inv)
	if err != nil || end == 0 {
		return err
	}
	var done uint64 // the last sequence delivered
	stalls := 0
	for {
		before := done
		more, err := scanFrom(ctx, js, stream, inv, done, end, fn, &done)
		if err != nil || !more {
			return err
		}
		// The consumer delivered nothing for scanIdle while the subject
		// still holds events after done: read on with a new one from there.
		if done > before {
			stalls = 0
		} else if stalls++; stalls >= scanStalls {
			return fmt.Errorf("read history of %s: no event after sequence %d arrived in %d tries of %s", inv, done, scanStalls, scanIdle)
		}
	}
}

// scanFrom reads inv's subject after sequence after with one ordered
// consumer, up to end, recording each delivered sequence in done. more
// says the consumer stalled with events still left after *done.
func scanFrom(ctx context.Context, js jetstream.JetStream, stream jetstream.Stream, inv busv1.NamespacedName,
	after, end uint64, fn func(seq uint64, data []byte) error, done *uint64,
) (more bool, err error) {
	cfg := jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{bus.SnapshotSubject(inv)}, DeliverPolicy: jetstream.DeliverAllPolicy,
		// The server drops the consumer this long after the scan (not the
		// library's 5 minutes): a busy reader leaves few behind.
		InactiveThreshold: scanInactiveThreshold,
	}
	if after > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, after+1
	}
	c, err := js.OrderedConsumer(ctx, bus.StreamSnapshots, cfg)
	if err != nil {
		return false, fmt.Errorf("read history of %s: %w", inv, err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		return false, fmt.Errorf("read history of %s: %w", inv, err)
	}
	if info.NumPending == 0 {
		return false, nil
	}
	// One pull per few messages, not per message: an ordered consumer's
	// Next recreates the consumer on the server for every message.
	it, err := c.Messages(jetstream.PullMaxMessagesWithBytesLimit(scanBuffer, scanPullBytes(js)))
	if err != nil {
		return false, fmt.Errorf("read history of %s: %w", inv, err)
	}
	defer it.Stop()
	for {
		wait, cancel := context.WithTimeout(ctx, scanIdle)
		m, err := it.Next(jetstream.NextContext(wait))
		cancel()
		if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			// Nothing came: the events left may have been deleted since
			// the scan began (a trim, a superseded periodic event). It is
			// over when the subject holds nothing after what was read;
			// else the caller reads on with a new consumer.
			last, err := lastSeq(ctx, stream, inv)
			if err != nil {
				return false, err
			}
			return last > *done, nil
		}
		if err != nil {
			return false, fmt.Errorf("read history of %s: %w", inv, err)
		}
		md, err := m.Metadata()
		if err != nil {
			return false, fmt.Errorf("read history of %s: %w", inv, err)
		}
		*done = md.Sequence.Stream
		if err := fn(*done, m.Data()); err != nil {
			return false, err
		}
		if md.NumPending == 0 || *done >= end {
			return false, nil // what the subject held when the scan began
		}
	}
}

// lastSeq is the sequence of the last event on inv's subject, 0 when none.
func lastSeq(ctx context.Context, s jetstream.Stream, inv busv1.NamespacedName) (uint64, error) {
	m, err := s.GetLastMsgForSubject(ctx, bus.SnapshotSubject(inv))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read history of %s: %w", inv, err)
	}
	return m.Sequence, nil
}

// scanIdle is how long a Scan waits for its next event before it checks
// whether the events left were deleted meanwhile.
const scanIdle = time.Second

// scanStalls is how many consumers in a row a Scan lets deliver nothing
// for scanIdle while its subject still holds events after the last one it
// read, before it gives up with an error: a consumer that stalled (seen
// when events were deleted under it) is replaced by one reading on from
// there, never waited on forever.
const scanStalls = 10

// scanInactiveThreshold is how long the server keeps a Scan's consumer
// after its last pull.
const scanInactiveThreshold = 10 * time.Second

// scanBuffer is how many messages a Scan buffers: a few kilobytes of
// ordinary events, 16 MiB at worst of events of the largest size.
// (jetstream.PullMaxBytes alone would size the buffer at a million
// messages: 8 MB of channel per scan.)
const scanBuffer = 16

// scanPullBytes bounds one pull of a Scan: the largest message the server
// takes (a pull must fit one whole message, or it stalls), plus room for
// the subject and headers.
func scanPullBytes(js jetstream.JetStream) int {
	return int(js.Conn().MaxPayload()) + 64<<10
}

// Index returns the entry of every event kept on inv's snapshot subject,
// oldest first (Scan): a few hundred bytes per event, never an envelope.
func Index(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName) ([]Entry, error) {
	var out []Entry
	err := Scan(ctx, js, inv, func(e Entry) error { out = append(out, e); return nil })
	return out, err
}

func entryOf(seq uint64, data []byte) (Entry, error) {
	var h head
	if err := json.Unmarshal(data, &h); err != nil {
		return Entry{}, err
	}
	return Entry{Sequence: seq, Revision: h.Revision, Generation: h.Generation, Time: h.CreatedAt,
		ItemCount: h.ItemCount, Checksum: h.Checksum, PreviousChecksum: h.PreviousChecksum, Reason: h.Reason,
		InventoryUID: h.InventoryUID, Replay: h.Replay != nil, Bytes: len(data)}, nil
}

// At returns the event stored at sequence seq, which must be on inv's
// snapshot subject; ErrNotFound when the stream no longer holds it.
func At(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName, seq uint64) (*Stored, error) {
	s, err := js.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		return nil, fmt.Errorf("open stream %s: %w", bus.StreamSnapshots, err)
	}
	return AtIn(ctx, s, inv, seq)
}

// AtIn is At on the snapshot stream s, opened once by a reader of many
// events.
func AtIn(ctx context.Context, s jetstream.Stream, inv busv1.NamespacedName, seq uint64) (*Stored, error) {
	m, err := s.GetMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, fmt.Errorf("read snapshot event %d of %s: %w", seq, inv, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read snapshot event %d of %s: %w", seq, inv, err)
	}
	if m.Subject != bus.SnapshotSubject(inv) {
		return nil, fmt.Errorf("read snapshot event %d of %s: it is on another subject: %w", seq, inv, ErrNotFound)
	}
	var ev busv1.SnapshotEvent
	if err := busv1.Unmarshal(m.Data, &ev); err != nil { // exact large integers
		return nil, fmt.Errorf("decode snapshot event %d of %s: %w", seq, inv, err)
	}
	return &Stored{Sequence: seq, Event: ev}, nil
}
