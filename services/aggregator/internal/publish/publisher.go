package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// ErrConflict is returned when the inventory's subject moved on since the
// sequence the caller expected: another writer published. The caller must
// reload the last event before publishing again.
var ErrConflict = errors.New("snapshot subject changed since the last known event")

// envField joins an event's other fields to its spliced envelope.
const envField = `,"envelope":`

// headroom is kept free under the stream's message limit for headers.
const headroom = 4 << 10

// Publisher publishes snapshot events.
type Publisher struct {
	js    jetstream.JetStream
	obs   jetstream.ObjectStore
	limit int
}

// New opens the snapshot stream and the envelope object store. maxBytes
// bounds an inline event; zero uses the stream's message limit and the
// server's max payload, whichever is smaller.
func New(ctx context.Context, js jetstream.JetStream, nc *nats.Conn, maxBytes int) (*Publisher, error) {
	s, err := js.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		return nil, fmt.Errorf("open stream %s: %w", bus.StreamSnapshots, err)
	}
	obs, err := js.ObjectStore(ctx, bus.ObjectStoreEnvelopes)
	if err != nil {
		return nil, fmt.Errorf("open object store %s: %w", bus.ObjectStoreEnvelopes, err)
	}
	if maxBytes <= 0 {
		maxBytes = int(nc.MaxPayload())
		if l := int(s.CachedInfo().Config.MaxMsgSize); l > 0 && l < maxBytes {
			maxBytes = l
		}
		maxBytes -= headroom
	}
	return &Publisher{js: js, obs: obs, limit: maxBytes}, nil
}

// Limit returns the largest inline event in bytes.
func (p *Publisher) Limit() int { return p.limit }

// Receipt is what Publish stored.
type Receipt struct {
	// Seq is the stream sequence of the stored event.
	Seq uint64
	// Ref is the object holding the envelope; nil when the event carries
	// it inline.
	Ref *busv1.ObjectRef
	// EnvelopeBytes is the size of the encoded envelope, inline or stored.
	EnvelopeBytes int64
}

// Publish stores ev on its inventory's subject, provided the subject's last
// sequence is still lastSeq (0: no event yet). ev holds either its Envelope,
// which moves to the object store when the event is too large, or an
// EnvelopeRef already stored for this revision.
func (p *Publisher) Publish(ctx context.Context, ev busv1.SnapshotEvent, lastSeq uint64) (Receipt, error) {
	data, envBytes, err := p.encode(ctx, &ev)
	if err != nil {
		return Receipt{}, err
	}
	msg := &nats.Msg{Subject: bus.SnapshotSubject(ev.Inventory), Data: data}
	id := bus.SnapshotMsgID(ev)
	var ack *jetstream.PubAck
	for attempt := 0; ; attempt++ {
		ack, err = p.js.PublishMsg(ctx, msg, jetstream.WithMsgID(id), jetstream.WithExpectLastSequencePerSubject(lastSeq))
		if err == nil || attempt == 2 || ctx.Err() != nil || isConflict(err) {
			break
		}
	}
	if isConflict(err) {
		return Receipt{}, fmt.Errorf("publish snapshot %s revision %d: %w", ev.Inventory, ev.Revision, ErrConflict)
	}
	if err != nil {
		return Receipt{}, fmt.Errorf("publish snapshot %s revision %d: %w", ev.Inventory, ev.Revision, err)
	}
	return Receipt{Seq: ack.Sequence, Ref: ev.EnvelopeRef, EnvelopeBytes: envBytes}, nil
}

func isConflict(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// encode marshals ev inline when it fits, else with an object reference, else
// also without its delta (exporters then use the full envelope). It also
// returns the size of the encoded envelope.
func (p *Publisher) encode(ctx context.Context, ev *busv1.SnapshotEvent) ([]byte, int64, error) {
	if ev.Envelope == nil && ev.EnvelopeRef != nil {
		b, err := p.marshalRef(ev)
		return b, ev.EnvelopeRef.Size, err
	}
	env := ev.Envelope
	ev.Envelope = nil
	rest, err := json.Marshal(ev)
	if err != nil {
		return nil, 0, fmt.Errorf("encode snapshot %s revision %d: %w", ev.Inventory, ev.Revision, err)
	}
	envBytes, err := env.MarshalJSON() // called directly: no second pass to compact it
	if err != nil {
		return nil, 0, fmt.Errorf("encode envelope %s revision %d: %w", ev.Inventory, ev.Revision, err)
	}
	if n := len(rest) + len(envField) + len(envBytes); n <= p.limit {
		// Splice the envelope in rather than encode it twice.
		out := make([]byte, 0, n)
		out = append(out, rest[:len(rest)-1]...)
		out = append(out, envField...)
		out = append(out, envBytes...)
		return append(out, '}'), int64(len(envBytes)), nil
	}
	if ev.EnvelopeRef, err = p.store(ctx, ev, envBytes); err != nil {
		return nil, 0, err
	}
	b, err := p.marshalRef(ev)
	return b, int64(len(envBytes)), err
}

func (p *Publisher) marshalRef(ev *busv1.SnapshotEvent) ([]byte, error) {
	b, err := json.Marshal(ev)
	if err == nil && len(b) > p.limit {
		ev.Delta = nil
		b, err = json.Marshal(ev)
	}
	if err != nil {
		return nil, fmt.Errorf("encode snapshot %s revision %d: %w", ev.Inventory, ev.Revision, err)
	}
	return b, nil
}

func (p *Publisher) store(ctx context.Context, ev *busv1.SnapshotEvent, envBytes []byte) (*busv1.ObjectRef, error) {
	name := bus.EnvelopeObjectName(ev.Inventory, ev.Revision)
	info, err := p.obs.PutBytes(ctx, name, envBytes)
	if err != nil {
		return nil, fmt.Errorf("store envelope %s/%s: %w", bus.ObjectStoreEnvelopes, name, err)
	}
	return &busv1.ObjectRef{Bucket: bus.ObjectStoreEnvelopes, Name: name, Size: int64(info.Size), Digest: info.Digest}, nil //nolint:gosec // G115: an envelope is far below 2^63 bytes
}
