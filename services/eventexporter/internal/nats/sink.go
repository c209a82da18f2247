package nats

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/eventexporter/internal/parts"
)

// Sink publishes snapshots to one subject of an external NATS JetStream. It
// implements sink.Sink, sink.Checker, sink.DriftChecker and
// sink.RowStreamer.
type Sink struct {
	set      settings
	opts     []nats.Option
	maxBytes int64
	window   time.Duration
	timeout  time.Duration

	high      parts.HighWater
	published positions

	mu     sync.Mutex
	nc     *nats.Conn
	js     jetstream.JetStream
	stream string // the stream verified (or created) to capture the subject
}

// Write publishes s's envelope, or its parts, unless this sink already
// published s's revision or a newer one; a repair (s.Repair, after Drift)
// is always published, under a message id of its own.
func (n *Sink) Write(ctx context.Context, s sink.Snapshot) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if n.high.Skip(s) {
		return nil
	}
	if err := n.publish(ctx, s); err != nil {
		return fmt.Errorf("publish %s to nats subject %s: %w", s.Envelope.Inventory, n.set.subject, err)
	}
	n.high.Sent(s)
	return nil
}

// StreamsRows makes the runtime hand full writes the rows as a stream
// (sink.RowStreamer): each message is assembled from them as it is
// published (parts.Stream), so that a write holds one message's rows.
func (n *Sink) StreamsRows() bool { return true }

func (n *Sink) publish(ctx context.Context, s sink.Snapshot) error {
	js, nc, stream, err := n.ready(ctx)
	if err != nil {
		return err
	}
	limit, err := n.limit(s, nc)
	if err != nil {
		return err
	}
	var ack *jetstream.PubAck
	err = parts.Stream(ctx, s, limit, func(p parts.Part) error {
		msg := &nats.Msg{Subject: n.set.subject, Data: p.JSON, Header: header(p)}
		id := msgID(p, s.Replay)
		if s.Repair {
			// A repair must be stored even when the server still
			// remembers the first message's id in its duplicate window.
			id += "/repair/" + s.Envelope.ExportedAt.UTC().Format(time.RFC3339Nano)
		}
		var err error
		if ack, err = n.publishOne(ctx, js, msg, id, stream); err != nil {
			if errors.Is(err, jetstream.ErrNoStreamResponse) {
				n.forgetStream() // deleted or moved: find (or create) it again on the retry
			}
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	n.published.wrote(s.Envelope, ack)
	return nil
}

func (n *Sink) forgetStream() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stream = ""
}

// publishOne publishes msg and waits for the stream's acknowledgement; a
// duplicate acknowledged by the server is success.
func (n *Sink) publishOne(ctx context.Context, js jetstream.JetStream, msg *nats.Msg, id, stream string) (*jetstream.PubAck, error) {
	ctx, cancel := n.bounded(ctx)
	defer cancel()
	ack, err := js.PublishMsg(ctx, msg, jetstream.WithMsgID(id), jetstream.WithExpectStream(stream))
	if err != nil {
		return nil, classify(ctx, err)
	}
	return ack, nil
}

// limit is the largest envelope JSON per message: the binding's
// maxExportBytes, the backend's cap and the server's max_payload less the
// headers, whichever is smallest.
func (n *Sink) limit(s sink.Snapshot, nc *nats.Conn) (int64, error) {
	limit := nc.MaxPayload() - headerAllowance(s.Envelope)
	for _, l := range []int64{s.MaxExportBytes, n.maxBytes} {
		if l > 0 && l < limit {
			limit = l
		}
	}
	if limit <= 0 {
		return 0, sink.Permanent(fmt.Errorf("the server's max_payload %d leaves no room for the envelope", nc.MaxPayload()))
	}
	return limit, nil
}

// bounded gives ctx the sink's timeout unless it has an earlier deadline.
func (n *Sink) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok && time.Until(d) < n.timeout {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, n.timeout)
}

// Check connects, authenticates and checks JetStream: the stream must
// capture the subject, except in provisioning mode ensure with a stream
// name, where a missing stream is created on the first write.
func (n *Sink) Check(ctx context.Context) error {
	ctx, cancel := n.bounded(ctx)
	defer cancel()
	js, _, err := n.connect(ctx)
	if err != nil {
		return fmt.Errorf("check nats: %w", err)
	}
	if _, err := js.AccountInfo(ctx); err != nil {
		return fmt.Errorf("check nats jetstream: %w", classify(ctx, err))
	}
	if n.set.ensure && n.set.stream != "" {
		return nil
	}
	if _, err := n.resolveStream(ctx, js, false); err != nil {
		return fmt.Errorf("check nats: %w", err)
	}
	return nil
}

// Close closes the connection, if any.
func (n *Sink) Close(context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.nc != nil {
		n.nc.Close()
		n.nc, n.js, n.stream = nil, nil, ""
	}
	return nil
}
