package aggregator

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/aggregator/internal/engine"
	"kollect.dev/kollect/services/aggregator/internal/lease"
)

// Run connects to the bus and, while this replica holds the leader lease
// (bus.LeaseKey in bus.BucketLeases, which provisioning creates),
// rebuilds and publishes snapshots until ctx ends.
func Run(ctx context.Context, c Config) error {
	nc, js, err := bus.Connect(c.NATSURL, busv1.ServiceAggregator)
	if err != nil {
		return err
	}
	defer nc.Close()
	return RunWith(ctx, js, c)
}

// RunWith is Run on an open JetStream context; `kollect dev` and tests share
// one connection this way.
func RunWith(ctx context.Context, js jetstream.JetStream, c Config) error {
	kv, err := js.KeyValue(ctx, bus.BucketLeases)
	if err != nil {
		return fmt.Errorf("open lease bucket %s: %w", bus.BucketLeases, err)
	}
	log := c.Log.WithValues("service", string(busv1.ServiceAggregator))
	l := lease.New(kv, bus.LeaseKey(busv1.ServiceAggregator), c.Identity, c.LeaseTTL)
	return l.Run(ctx, func(ctx context.Context) error {
		log.Info("leading", "identity", c.Identity)
		e, err := engine.New(ctx, js, engine.Options{Settle: c.Settle, MaxMessageBytes: c.MaxMessageBytes, Log: log})
		if err != nil {
			return err
		}
		return e.Run(ctx)
	})
}
