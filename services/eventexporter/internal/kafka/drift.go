package kafka

import (
	"context"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// The runtime's periodic drift check finds the sink through this interface.
var _ sink.DriftChecker = (*Sink)(nil)

// position is where this sink wrote the last record of an inventory's
// export under the inventory key: the inventory record in perRow mode, the
// last part in snapshot mode.
type position struct {
	revision  uint64
	checksum  string
	partition int32
	offset    int64
}

// positions holds the position of each inventory's last export, by
// inventory key.
type positions struct {
	mu  sync.Mutex
	pos map[string]position
}

// wrote records that rec, the last record of env's export, was acknowledged
// (ProduceSync sets its partition and offset).
func (p *positions) wrote(env busv1.Envelope, rec *kgo.Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pos == nil {
		p.pos = map[string]position{}
	}
	p.pos[InventoryKey(env.Cluster, env.Inventory)] = position{revision: env.Revision, checksum: env.Checksum,
		partition: rec.Partition, offset: rec.Offset}
}

func (p *positions) get(invKey string) (position, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pos, ok := p.pos[invKey]
	return pos, ok
}

// Drift checks, without writing, that the topic still holds the last export
// of s: the topic exists and, when this sink wrote s's revision and
// checksum itself, the partition of the inventory key still holds the
// offset it wrote the export's last record at (neither re-created below it
// nor truncated past it, by hand or by retention). A sink that did not
// write s since it started (a restart) finds that offset in the tail of the
// partition (recall); when the tail does not hold s, it checks the topic
// only. Records written over by a topic re-created and filled past that
// offset again are not detected.
func (k *Sink) Drift(ctx context.Context, s sink.Snapshot) (string, error) {
	ctx, done := k.auth.op(ctx)
	defer done()
	exists, err := k.topicExists(ctx)
	if err != nil {
		return "", fmt.Errorf("check drift: %w", err)
	}
	if !exists {
		k.forgetTopic()
		return fmt.Sprintf("kafka topic %s missing", k.set.topic), nil
	}
	env := s.Envelope
	if err := k.recallFor(ctx, env, false); err != nil {
		return "", fmt.Errorf("check drift: %w", err)
	}
	pos, ok := k.produced.get(InventoryKey(env.Cluster, env.Inventory))
	if !ok || pos.revision != env.Revision || pos.checksum != env.Checksum {
		return "", nil
	}
	ends, err := k.adm.ListEndOffsets(ctx, k.set.topic)
	if err != nil {
		return "", fmt.Errorf("check drift: list end offsets of kafka topic %s: %w", k.set.topic, classify(ctx, err))
	}
	starts, err := k.adm.ListStartOffsets(ctx, k.set.topic)
	if err != nil {
		return "", fmt.Errorf("check drift: list start offsets of kafka topic %s: %w", k.set.topic, classify(ctx, err))
	}
	end, ok := ends.Lookup(k.set.topic, pos.partition)
	if !ok || end.Err != nil {
		k.forgetTopic()
		return fmt.Sprintf("kafka topic %s has no partition %d", k.set.topic, pos.partition), nil
	}
	if end.Offset <= pos.offset {
		k.forgetTopic()
		return fmt.Sprintf("partition %d of kafka topic %s ends at offset %d, revision %d was written at %d (topic re-created)",
			pos.partition, k.set.topic, end.Offset, env.Revision, pos.offset), nil
	}
	if start, ok := starts.Lookup(k.set.topic, pos.partition); ok && start.Err == nil && start.Offset > pos.offset {
		return fmt.Sprintf("partition %d of kafka topic %s starts at offset %d, revision %d was written at %d (records deleted)",
			pos.partition, k.set.topic, start.Offset, env.Revision, pos.offset), nil
	}
	return "", nil
}

// forgetTopic makes the next write verify (or create) the topic again and
// drops the client's metadata of it, whose topic id a re-created topic no
// longer has.
func (k *Sink) forgetTopic() {
	k.mu.Lock()
	k.ready = false
	k.mu.Unlock()
	k.cl.PurgeTopicsFromClient(k.set.topic)
}
