package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
)

// Client sends connection-test requests.
type Client struct {
	conn    *nats.Conn
	timeout time.Duration
	seq     atomic.Uint64
	prefix  string
}

// New returns a Client on conn that waits at most timeout for a reply.
func New(conn *nats.Conn, timeout time.Duration) *Client {
	return &Client{conn: conn, timeout: timeout, prefix: strconv.FormatInt(time.Now().UnixNano(), 36)}
}

// Probe asks the exporter of sink's family to probe the sink at generation
// gen. A missing or late exporter is a failed, non-permanent reply, so the
// caller retries; the returned error is only for a malformed reply.
func (c *Client) Probe(ctx context.Context, sink busv1.SinkRef, gen int64) (busv1.ConnectionTestReply, error) {
	req := busv1.ConnectionTestRequest{
		RequestID: c.prefix + "-" + strconv.FormatUint(c.seq.Add(1), 10), Sink: sink, SinkGeneration: gen,
	}
	data, err := json.Marshal(req)
	if err != nil {
		return busv1.ConnectionTestReply{}, fmt.Errorf("encode connection test of %s: %w", sink.BindingName(), err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	start := time.Now()
	msg, err := c.conn.RequestWithContext(ctx, bus.ConnTestSubject(sink.Family), data)
	if err != nil {
		return failed(req.RequestID, sink, start, err), nil
	}
	var reply busv1.ConnectionTestReply
	if err := json.Unmarshal(msg.Data, &reply); err != nil {
		return busv1.ConnectionTestReply{}, fmt.Errorf("decode connection test reply for %s: %w", sink.BindingName(), err)
	}
	if reply.LatencyMs == 0 {
		reply.LatencyMs = time.Since(start).Milliseconds()
	}
	return reply, nil
}

func failed(id string, sink busv1.SinkRef, start time.Time, err error) busv1.ConnectionTestReply {
	msg := fmt.Sprintf("no answer from %s within the probe timeout", sink.Family.Exporter())
	if errors.Is(err, nats.ErrNoResponders) {
		msg = fmt.Sprintf("no %s is running to probe %s", sink.Family.Exporter(), sink.BindingName())
	}
	return busv1.ConnectionTestReply{
		RequestID: id, LatencyMs: time.Since(start).Milliseconds(),
		Outcome: busv1.Outcome{Reason: v1alpha1.ReasonConnectionTestFailed, Message: msg},
	}
}
