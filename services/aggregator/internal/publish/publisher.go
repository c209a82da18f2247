package publish

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/failpoint"
	"kollect.dev/kollect/pkg/history"
)

// ErrConflict reports that another event was published on the inventory's
// subject since the last one this publisher knows: another aggregator
// replica published, and the caller must reload before publishing again.
var ErrConflict = errors.New("snapshot subject changed since the last known event")

// headroom is kept free below the message limit for headers.
const headroom = 4 << 10

// Publisher publishes snapshot events, storing what does not fit in a bus
// message as content-addressed objects (chunks and a manifest, or a delta).
type Publisher struct {
	js    jetstream.JetStream
	w     *history.Writer
	limit int
}

// New opens the snapshot stream and the envelope object store. maxBytes
// bounds an event; zero derives it from the server's and stream's limits.
func New(ctx context.Context, js jetstream.JetStream, nc *nats.Conn, maxBytes int) (*Publisher, error) {
	s, err := js.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		return nil, fmt.Errorf("open stream %s: %w", bus.StreamSnapshots, err)
	}
	w, err := history.NewWriter(ctx, js)
	if err != nil {
		return nil, err
	}
	if maxBytes <= 0 {
		maxBytes = int(nc.MaxPayload())
		if l := int(s.CachedInfo().Config.MaxMsgSize); l > 0 && l < maxBytes {
			maxBytes = l
		}
		maxBytes -= headroom
	}
	return &Publisher{js: js, w: w, limit: maxBytes}, nil
}

// Limit is the largest event the publisher sends.
func (p *Publisher) Limit() int { return p.limit }

// Writer is the publisher's object writer.
func (p *Publisher) Writer() *history.Writer { return p.w }

// Content is an event's body before it is published.
type Content struct {
	// Envelope is the whole envelope as JSON, when small enough to be
	// inline; nil otherwise.
	Envelope []byte
	// Manifest stores the snapshot's chunks and manifest and returns the
	// manifest's reference, for when the envelope is not inline.
	Manifest func(ctx context.Context) (*busv1.ObjectRef, error)
	// Reuse is the body of the revision a periodic event re-exports: its
	// manifest or envelope object, or its inline envelope, which is then
	// stored once as an envelope object (bus.EnvelopeBlobObjectName) and
	// referenced. A periodic event never repeats an envelope inline.
	Reuse *Body
	// Delta is the delta as JSON; nil for none.
	Delta []byte
}

// Body is what an event's snapshot is: inline, a manifest or (events of
// earlier releases) an envelope object.
type Body struct {
	Envelope    []byte
	ManifestRef *busv1.ObjectRef
	EnvelopeRef *busv1.ObjectRef
}

// Receipt describes a published event.
type Receipt struct {
	// Seq is the event's stream sequence.
	Seq uint64
	// Body is the event's snapshot, for periodic events that repeat it.
	Body Body
	// Written is the number of object bytes written for the event.
	Written int64
	// EventBytes is the size of the event message.
	EventBytes int
}

// Publish stores what ev's content needs and publishes ev, expecting lastSeq
// as the subject's last sequence (0: none). A conflict returns ErrConflict.
func (p *Publisher) Publish(ctx context.Context, ev busv1.SnapshotEvent, c Content, lastSeq uint64) (Receipt, error) {
	data, r, err := p.encode(ctx, &ev, c)
	if err != nil {
		return Receipt{}, err
	}
	failpoint.Hit("aggregator.afterObjectPut") // chunks and manifest stored, the event not published
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
	failpoint.Hit("aggregator.afterPublish") // published, the engine's state not updated
	r.Seq, r.EventBytes = ack.Sequence, len(data)
	return r, nil
}

func isConflict(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}
