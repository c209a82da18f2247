package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/eventexporter/internal/parts"
)

// Sink publishes snapshots to one Kafka topic. It implements sink.Sink,
// sink.Checker, sink.DeltaWriter, sink.DriftChecker and sink.RowStreamer.
type Sink struct {
	cl       *kgo.Client
	opts     []kgo.Opt // cl's options, for the clients that read back (recall)
	adm      *kadm.Client
	set      settings
	maxBytes int

	auth *authWatch

	high     parts.HighWater
	rows     rowMemory
	produced positions
	recalled recalls
	// recallLimit is maxRecallRecords; tests lower it.
	recallLimit int64

	mu      sync.Mutex
	ready   bool // the topic was created or verified
	created bool // this sink created the topic: there is nothing to recall
}

func newSink(cl *kgo.Client, opts []kgo.Opt, auth *authWatch, set settings, maxBytes int) *Sink {
	return &Sink{cl: cl, opts: opts, adm: kadm.NewClient(cl), auth: auth, set: set, maxBytes: maxBytes,
		recallLimit: maxRecallRecords}
}

// StreamsRows makes the runtime hand full writes the rows as a stream
// (sink.RowStreamer): in snapshot mode the envelope's parts are assembled
// from them (parts.Stream), in perRow mode each is compared with what was
// sent as it is read.
func (k *Sink) StreamsRows() bool { return true }

// NeedsDelta reports, in perRow mode, that a full write cannot tombstone
// the rows deleted since a write this sink did not make (it remembers what
// it sent in memory only): the runtime then rebuilds the delta from the
// snapshot history when no chained delta applies (see pkg/exporter).
func (k *Sink) NeedsDelta() bool { return k.set.perRow }

// Write publishes s unless the topic was already sent s's revision, or a
// newer one, by this sink. A repair (s.Repair, after Drift) is always sent,
// in perRow mode every row of it.
func (k *Sink) Write(ctx context.Context, s sink.Snapshot) error {
	return k.write(ctx, s)
}

// WriteDelta publishes s like Write. In perRow mode the records are those
// of s.Delta (upserts and tombstones for its deletes), built from the delta
// alone, unless this sink last sent another revision than the delta's base:
// then the full snapshot is loaded (s.WithFull) and written as Write does.
// In snapshot mode the snapshot is written whole, its rows streamed as in
// a full write (StreamsRows).
func (k *Sink) WriteDelta(ctx context.Context, s sink.Snapshot) error {
	if k.set.perRow && k.deltaApplies(s) {
		return k.write(ctx, s)
	}
	if k.high.Skip(s) {
		return nil
	}
	full := s
	if !k.StreamsRows() {
		var err error
		if full, err = s.WithFull(ctx); err != nil {
			return fmt.Errorf("write %s to kafka topic %s: %w", s.Envelope.Inventory, k.set.topic, err)
		}
	}
	full.Delta = nil
	return k.write(ctx, full)
}

func (k *Sink) write(ctx context.Context, s sink.Snapshot) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if k.high.Skip(s) {
		return nil
	}
	ctx, done := k.auth.op(ctx)
	defer done()
	if err := k.ensureTopic(ctx); err != nil {
		return err
	}
	if err := k.recall(ctx, s); err != nil {
		return fmt.Errorf("write %s to kafka topic %s: %w", s.Envelope.Inventory, k.set.topic, err)
	}
	if k.high.Skip(s) {
		return nil // the topic holds it: written before a restart
	}
	var err error
	if k.set.perRow {
		err = k.writeRows(ctx, s)
	} else {
		err = k.writeSnapshot(ctx, s)
	}
	if err != nil {
		return fmt.Errorf("write %s to kafka topic %s: %w", s.Envelope.Inventory, k.set.topic, err)
	}
	k.high.Sent(s)
	return nil
}

// writeSnapshot sends the envelope, or its parts, as records keyed by the
// inventory: one partition, in order. A streamed snapshot's parts are
// produced as they are assembled, up to produceBatchBytes of them at a
// time, each batch acknowledged before the next is read.
func (k *Sink) writeSnapshot(ctx context.Context, s sink.Snapshot) error {
	var (
		batch []*kgo.Record
		size  int
		last  *kgo.Record
	)
	err := parts.Stream(ctx, s, limit(s.MaxExportBytes, k.maxBytes), func(p parts.Part) error {
		last = k.snapshotRecord(p)
		batch, size = append(batch, last), size+len(last.Value)
		if size < produceBatchBytes {
			return nil
		}
		err := k.produce(ctx, batch)
		batch, size = nil, 0
		return err
	})
	if err == nil {
		err = k.produce(ctx, batch)
	}
	if err != nil {
		return err
	}
	k.produced.wrote(s.Envelope, last)
	return nil
}

// produceBatchBytes is how many bytes of a streamed snapshot's records are
// produced at once.
const produceBatchBytes = 4 << 20

// produce sends recs and waits for every acknowledgement.
func (k *Sink) produce(ctx context.Context, recs []*kgo.Record) error {
	if len(recs) == 0 {
		return nil
	}
	if err := k.cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return classify(ctx, err)
	}
	return nil
}

// limit is the binding's maxExportBytes, capped by the backend's limit.
func limit(binding int64, backend int) int64 {
	if binding > 0 && binding < int64(backend) {
		return binding
	}
	return int64(backend)
}

// ensureTopic verifies, once per sink, that the topic exists, and creates
// it when missing in provisioning mode ensure. Reading the metadata first
// means a principal allowed to write to an existing topic needs no right to
// create topics.
func (k *Sink) ensureTopic(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ready {
		return nil
	}
	exists, err := k.topicExists(ctx)
	switch {
	case err != nil:
		return err
	case !exists && !k.set.ensure:
		return sink.Permanent(fmt.Errorf("kafka topic %s does not exist (provisioning mode existing)", k.set.topic))
	case !exists:
		if err := k.createTopic(ctx); err != nil {
			return err
		}
		k.created = true
	}
	k.ready = true
	return nil
}

// createTopic creates the topic with the brokers' default partitions and
// replication, compacted in perRow mode.
func (k *Sink) createTopic(ctx context.Context) error {
	var configs map[string]*string
	if k.set.perRow {
		compact := "compact"
		configs = map[string]*string{"cleanup.policy": &compact}
	}
	_, err := k.adm.CreateTopic(ctx, -1, -1, configs, k.set.topic)
	if err == nil || errors.Is(err, kerr.TopicAlreadyExists) {
		return nil
	}
	return fmt.Errorf("create kafka topic %s: %w", k.set.topic, classify(ctx, err))
}

// topicExists reads the topic's metadata from a broker, bypassing the
// client's metadata cache, so that a topic deleted a moment ago is seen
// missing (Drift).
func (k *Sink) topicExists(ctx context.Context) (bool, error) {
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(k.set.topic)
	req.Topics = []kmsg.MetadataRequestTopic{rt}
	resp, err := req.RequestWith(ctx, k.cl)
	if err != nil {
		return false, fmt.Errorf("describe kafka topic %s: %w", k.set.topic, classify(ctx, err))
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != k.set.topic {
			continue
		}
		switch err := kerr.ErrorForCode(t.ErrorCode); {
		case err == nil:
			return true, nil
		case errors.Is(err, kerr.UnknownTopicOrPartition):
			return false, nil
		default:
			return false, fmt.Errorf("describe kafka topic %s: %w", k.set.topic, classify(ctx, err))
		}
	}
	return false, nil
}

// Check connects, authenticates and reads the topic's metadata. A missing
// topic is an error only in provisioning mode existing; nothing is written.
func (k *Sink) Check(ctx context.Context) error {
	ctx, done := k.auth.op(ctx)
	defer done()
	exists, err := k.topicExists(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("check: %w", err)
	case !exists && !k.set.ensure:
		return sink.Permanent(fmt.Errorf("check: kafka topic %s does not exist (provisioning mode existing)", k.set.topic))
	}
	return nil
}

// Close flushes nothing (every write waits for its acknowledgements) and
// closes the client.
func (k *Sink) Close(context.Context) error {
	k.cl.Close()
	return nil
}
