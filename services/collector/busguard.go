package collector

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/collector/internal/engine"
	"kollect.dev/kollect/services/collector/internal/rowstore"
)

// errBusReset ends a term whose rows or config bucket is not the one it
// loaded: the next term reloads the rows (an empty bucket: every row is
// written again), relists the cluster and reads the config again.
var errBusReset = errors.New("rows or config bucket lost, re-created or emptied")

// streamIdentity is what tells one incarnation of a bucket's stream from
// the next: its creation time.
type streamIdentity struct {
	created time.Time
}

// busGuard watches the rows and config buckets of one term.
type busGuard struct {
	js       jetstream.JetStream
	interval time.Duration
	// reconnected returns a channel closed at the next reconnect to NATS.
	reconnected func() <-chan struct{}
	// rows are the rows the term holds; a bucket without messages while
	// they are not empty was purged.
	rows func() int

	base map[string]streamIdentity
}

// guardedStreams are the streams whose loss restarts a term.
var guardedStreams = []string{bus.KVStreamName(bus.BucketRows), bus.KVStreamName(bus.BucketConfig)}

// baseline records the streams as the term starts; a stream missing now is
// checked again once it exists.
func (g *busGuard) baseline(ctx context.Context) {
	g.base = map[string]streamIdentity{}
	for _, name := range guardedStreams {
		if info, err := g.info(ctx, name); err == nil {
			g.base[name] = streamIdentity{created: info.Created}
		}
	}
}

func (g *busGuard) info(ctx context.Context, name string) (*jetstream.StreamInfo, error) {
	s, err := g.js.Stream(ctx, name)
	if err != nil {
		return nil, err
	}
	return s.Info(ctx)
}

// Run checks every interval and after each reconnect; it returns
// errBusReset when a bucket changed under the term, nil when ctx ends.
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
		if err := g.check(ctx); err != nil {
			return err
		}
	}
}

// check compares each stream with the baseline; a failure to ask is not a
// loss (NATS may be down), only a definite answer is.
func (g *busGuard) check(ctx context.Context) error {
	for _, name := range guardedStreams {
		info, err := g.info(ctx, name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			if _, had := g.base[name]; had {
				return fmt.Errorf("%w: stream %s not found", errBusReset, name)
			}
			continue
		}
		if err != nil {
			continue
		}
		base, had := g.base[name]
		switch {
		case !had:
			return fmt.Errorf("%w: stream %s appeared", errBusReset, name)
		case !info.Created.Equal(base.created):
			return fmt.Errorf("%w: stream %s was re-created", errBusReset, name)
		case name == guardedStreams[0] && info.State.Msgs == 0 && g.rows() > 0:
			return fmt.Errorf("%w: stream %s was emptied", errBusReset, name)
		}
	}
	return nil
}

// markSynced writes bus.RowsSyncedKey once the term's initial sync is on
// the bus, so that the aggregator publishes snapshots from the rows again
// after the bucket was refilled. It polls the engine, cheaply, and wants the
// engine idle on two polls in a row around a flush of the rows store, so
// that a sweep queued just after an informer synced is not missed.
func markSynced(ctx context.Context, kv jetstream.KeyValue, eng *engine.Engine, rows *rowstore.Store) error {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	streak := 0
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if !eng.InitialSyncDone() {
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
		if _, err := kv.Put(ctx, bus.RowsSyncedKey, []byte(time.Now().UTC().Format(time.RFC3339Nano))); err != nil {
			streak = 0
			continue
		}
		return nil
	}
}
