package lease

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
)

// Retired is the holder of the single aggregator lease of earlier releases
// while the aggregator runs sharded (pkg/shard): no replica of such a
// release takes the lease, and so none becomes active, while it is held so.
const Retired = "=sharded"

// Retire keeps key held by Retired, renewed every ttl/3 by every sharded
// replica, until ctx ends; it is never given back, and expires ttl after
// the last sharded replica stopped. It closes held once it holds the key:
// until then a replica of an earlier release is active (its lease is
// live), and the caller must take no shard, so that a rolling update never
// runs both at once.
func Retire(ctx context.Context, kv jetstream.KeyValue, key string, ttl time.Duration, held chan<- struct{}, log logr.Logger) {
	l := New(kv, key, Retired, ttl)
	t := time.NewTicker(ttl / 3)
	defer t.Stop()
	for {
		_, err := l.try(ctx)
		switch {
		case err == nil && held != nil:
			close(held)
			held = nil
		case err != nil && held != nil && ctx.Err() == nil:
			log.Info("waiting for the active aggregator of an earlier release to stop", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
