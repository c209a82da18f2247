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
// subject, oldest first, reading one message at a time: its memory is one
// event, whatever the history holds. An error from fn stops the scan and is
// returned.
func Scan(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName, fn func(Entry) error) error {
	subject := bus.SnapshotSubject(inv)
	c, err := js.OrderedConsumer(ctx, bus.StreamSnapshots, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{subject}, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return fmt.Errorf("read history of %s: %w", inv, err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		return fmt.Errorf("read history of %s: %w", inv, err)
	}
	for pending := info.NumPending; pending > 0; {
		m, err := c.Next(jetstream.FetchContext(ctx))
		if err != nil {
			return fmt.Errorf("read history of %s: %w", inv, err)
		}
		md, err := m.Metadata()
		if err != nil {
			return fmt.Errorf("read history of %s: %w", inv, err)
		}
		pending = md.NumPending
		e, err := entryOf(md.Sequence.Stream, m.Data())
		if err != nil {
			return fmt.Errorf("decode snapshot event %d of %s: %w", md.Sequence.Stream, inv, err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
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
	if err := json.Unmarshal(m.Data, &ev); err != nil {
		return nil, fmt.Errorf("decode snapshot event %d of %s: %w", seq, inv, err)
	}
	return &Stored{Sequence: seq, Event: ev}, nil
}
