package nats

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// The runtime's periodic drift check finds the sink through this interface.
var _ sink.DriftChecker = (*Sink)(nil)

// position is the stream and sequence of the last message of an
// inventory's last export (its last part).
type position struct {
	revision uint64
	checksum string
	stream   string
	sequence uint64
}

// positions holds the position of each inventory's last export, by
// "<cluster>/<namespace>/<inventory>".
type positions struct {
	mu  sync.Mutex
	pos map[string]position
}

func inventoryID(env busv1.Envelope) string {
	return env.Cluster + "/" + env.Inventory.Namespace + "/" + env.Inventory.Name
}

// wrote records that the last message of env's export was acknowledged
// with ack (for a duplicate, the sequence of the message first stored).
func (p *positions) wrote(env busv1.Envelope, ack *jetstream.PubAck) {
	if ack == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pos == nil {
		p.pos = map[string]position{}
	}
	p.pos[inventoryID(env)] = position{revision: env.Revision, checksum: env.Checksum, stream: ack.Stream, sequence: ack.Sequence}
}

func (p *positions) get(env busv1.Envelope) (position, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pos, ok := p.pos[inventoryID(env)]
	return pos, ok
}

// Drift checks, without publishing, that the stream still holds the last
// export of s: a stream captures the subject (the named stream exists)
// and, when this sink published s's revision and checksum itself and the
// stream keeps messages by limits (not interest or work-queue retention,
// where consumers remove them), the message it stored last for s is still
// at its sequence with s's inventory, revision and checksum. A sink that
// did not publish s since it started (a restart) checks the stream only:
// the subject is shared by every inventory, so its last message does not
// say what this inventory last got.
func (n *Sink) Drift(ctx context.Context, s sink.Snapshot) (string, error) {
	ctx, cancel := n.bounded(ctx)
	defer cancel()
	js, _, err := n.connect(ctx)
	if err != nil {
		return "", fmt.Errorf("check drift: %w", err)
	}
	name, reason, err := n.currentStream(ctx, js)
	if err != nil || reason != "" {
		return reason, err
	}
	pos, ok := n.published.get(s.Envelope)
	if !ok || pos.revision != s.Envelope.Revision || pos.checksum != s.Envelope.Checksum {
		return "", nil
	}
	if pos.stream != name {
		return fmt.Sprintf("subject %s is captured by stream %s, revision %d went to stream %s", n.set.subject, name, pos.revision, pos.stream), nil
	}
	st, err := js.Stream(ctx, name)
	if err != nil {
		return "", fmt.Errorf("check drift: read stream %s: %w", name, classify(ctx, err))
	}
	if st.CachedInfo().Config.Retention != jetstream.LimitsPolicy {
		return "", nil
	}
	m, err := st.GetMsg(ctx, pos.sequence)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return fmt.Sprintf("message %d of stream %s (revision %d) missing: purged, deleted or expired", pos.sequence, name, pos.revision), nil
	}
	if err != nil {
		return "", fmt.Errorf("check drift: read message %d of stream %s: %w", pos.sequence, name, classify(ctx, err))
	}
	env := s.Envelope
	if m.Header.Get(HeaderRevision) != strconv.FormatUint(env.Revision, 10) || m.Header.Get(HeaderChecksum) != env.Checksum ||
		m.Header.Get(HeaderCluster) != env.Cluster || m.Header.Get(HeaderInventory) != env.Inventory.Namespace+"/"+env.Inventory.Name {
		return fmt.Sprintf("message %d of stream %s is not revision %d of %s (stream re-created)", pos.sequence, name, pos.revision, inventoryID(env)), nil
	}
	return "", nil
}

// currentStream returns the stream capturing the subject now, or a drift
// reason when there is none (the stream deleted): the next write then
// finds, or in mode ensure creates, the stream again.
func (n *Sink) currentStream(ctx context.Context, js jetstream.JetStream) (string, string, error) {
	if n.set.stream != "" {
		_, err := js.Stream(ctx, n.set.stream)
		switch {
		case errors.Is(err, jetstream.ErrStreamNotFound):
			n.forgetStream()
			return "", fmt.Sprintf("stream %s missing", n.set.stream), nil
		case err != nil:
			return "", "", fmt.Errorf("check drift: read stream %s: %w", n.set.stream, classify(ctx, err))
		}
		return n.set.stream, "", nil
	}
	name, err := js.StreamNameBySubject(ctx, n.set.subject)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		n.forgetStream()
		return "", fmt.Sprintf("no stream captures subject %s", n.set.subject), nil
	case err != nil:
		return "", "", fmt.Errorf("check drift: find the stream of subject %s: %w", n.set.subject, classify(ctx, err))
	}
	return name, "", nil
}
