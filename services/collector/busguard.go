package collector

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/collector/internal/engine"
	"kollect.dev/kollect/services/collector/internal/rowstore"
)

// termStreams are the streams of the rows and config buckets: a term ends
// (bus.ErrReset) when either is not the one it loaded, and the next term
// reloads the rows (an empty bucket: every row is written again), relists
// the cluster and reads the config again.
var termStreams = []string{bus.KVStreamName(bus.BucketRows), bus.KVStreamName(bus.BucketConfig)}

// watchTerm takes the baseline of a term. A bucket missing now is watched
// for its appearance; the rows bucket emptied while held reports rows is a
// reset too.
func watchTerm(ctx context.Context, js jetstream.JetStream, held func() bool) (*bus.Incarnation, error) {
	return bus.Watch(ctx, js, termStreams, bus.MissingOK(), bus.Emptied(termStreams[0], held))
}

// busGuard checks the buckets of one term every interval and after each
// reconnect to NATS, the moment a wiped server may be back.
type busGuard struct {
	inc      *bus.Incarnation
	interval time.Duration
	// reconnected returns a channel closed at the next reconnect to NATS.
	reconnected func() <-chan struct{}
}

// Run returns a bus.ErrReset when a bucket changed under the term, nil when
// ctx ends. A failure to ask is not a loss (NATS may be down), only a
// definite answer is.
func (g *busGuard) Run(ctx context.Context) error {
	t := time.NewTicker(g.interval)
	defer t.Stop()
	for {
		var reconnected <-chan struct{}
		if g.reconnected != nil {
			reconnected = g.reconnected()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-reconnected:
		}
		if err := g.inc.Check(ctx); errors.Is(err, bus.ErrReset) {
			return err
		}
	}
}

// markSynced writes the rows-synced marker of every shard the node holds
// once the term's sync of it is on the bus (bus.RowsSyncedShardKey), so that
// the aggregator publishes snapshots from the rows again after the bucket
// was refilled. It polls the engine, cheaply, and wants the engine idle on
// two polls in a row around a flush of the rows store, with no shard taken
// meanwhile, so that a sweep queued just after an informer synced is not
// missed.
func markSynced(ctx context.Context, kv jetstream.KeyValue, n *node, shards int, eng *engine.Engine, rows *rowstore.Store) error {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	streak, epoch := 0, uint64(0)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		todo, ep := n.unmarked()
		if ep != epoch {
			streak, epoch = 0, ep
		}
		if len(todo) == 0 || !eng.InitialSyncDone() {
			streak = 0
			continue
		}
		if streak++; streak < 2 {
			continue
		}
		if rows.Flush(ctx) != nil || !eng.InitialSyncDone() {
			streak = 0
			continue
		}
		now := []byte(time.Now().UTC().Format(time.RFC3339Nano))
		if n.setMarked(todo, epoch, func(i int) error {
			_, err := kv.Put(ctx, bus.RowsSyncedShardKey(shards, i), now)
			return err
		}) != nil {
			streak = 0
		}
	}
}
