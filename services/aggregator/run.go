package aggregator

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/sync/errgroup"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/shard"
	"kollect.dev/kollect/services/aggregator/internal/engine"
	"kollect.dev/kollect/services/aggregator/internal/lease"
	"kollect.dev/kollect/services/aggregator/internal/placement"
	"kollect.dev/kollect/services/aggregator/internal/replayer"
)

// Run connects to the bus and, for each of the Shards shards this replica
// holds (pkg/shard: a lease per shard in bus.BucketLeases, which
// provisioning creates; the shards are spread over the live replicas),
// rebuilds and publishes the snapshots of the shard's inventories until ctx
// ends.
func Run(ctx context.Context, c Config) error {
	nc, js, err := c.Bus.Connect(busv1.ServiceAggregator)
	if err != nil {
		return err
	}
	defer nc.Close()
	reg := app.NewRegistry()
	srv := c.Metrics.Server(reg, func() error {
		if !nc.IsConnected() {
			return errors.New("not connected to the bus")
		}
		return nil
	}, c.Log)
	c.MetricsRegistry = reg
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Run(ctx) })
	g.Go(func() error { return RunWith(ctx, js, c) })
	return g.Wait()
}

// RunWith is Run on an open JetStream context; `kollect dev` and tests share
// one connection this way.
func RunWith(ctx context.Context, js jetstream.JetStream, c Config) error {
	log := c.Log
	kv, err := leaseBucket(ctx, js, log)
	if err != nil {
		return err
	}
	// Registered once: each shard's engine, each time it is taken, runs on
	// them.
	m := engine.NewMetrics(c.MetricsRegistry)
	g, err := shard.New(shard.Config{KV: kv, Role: string(busv1.ServiceAggregator), Identity: c.Leader.Identity,
		Shards: c.Shards, TTL: c.Leader.LeaseDuration, Log: log.WithName("shards")})
	if err != nil {
		return err
	}
	// No shard while a replica of an earlier release, elected with the
	// single lease, is active; and none becomes active afterwards.
	retired := make(chan struct{})
	rctx, stopRetire := context.WithCancel(ctx)
	defer stopRetire()
	go lease.Retire(rctx, kv, bus.LeaseKey(busv1.ServiceAggregator), c.Leader.LeaseDuration, retired, log)
	select {
	case <-ctx.Done():
		return nil
	case <-retired:
	}
	return g.Run(ctx, func(ctx context.Context, i int) error { return runShard(ctx, js, c, m, i) })
}

// runShard rebuilds and publishes the snapshots of shard i's inventories,
// and runs their replays, until ctx ends (the shard is given back or lost).
func runShard(ctx context.Context, js jetstream.JetStream, c Config, m *engine.Metrics, i int) error {
	log := c.Log.WithValues("shard", i)
	log.Info("working on shard", app.KeyIdentity, c.Leader.Identity, "shards", c.Shards)
	owns := func(o bus.ObjectOwner) bool { return placement.Of(o, c.Shards) == i }
	defer replays(ctx, js, c, log, func(inv busv1.NamespacedName) bool { return owns(bus.OwnerOf(inv)) })()
	for {
		// The bus may be provisioned again right now (its store was lost,
		// and the leases came back before the rest): wait for everything
		// the engine opens.
		if _, err := leaseBucket(ctx, js, log); err != nil {
			return err
		}
		e, err := engine.New(ctx, js, engine.Options{Settle: c.Settle, CollectorShards: c.CollectorShards, MaxMessageBytes: c.MaxMessageBytes, Log: log,
			Metrics: m, GCInterval: c.GCInterval, GCAfterBytes: c.GCAfterBytes, GCGrace: c.GCGrace,
			HistoryMaxBytes:  c.HistoryMaxBytes,
			HistoryRevisions: c.HistoryRevisions, HistoryMaxAge: c.HistoryMaxAge, BusCheckInterval: c.BusCheckInterval,
			MinExportInterval: c.MinExportInterval, NamespaceBusBytes: int64(c.NamespaceBusBytes),
			NamespaceHistoryRevisions: c.NamespaceHistoryRevisions, HistoryPurgeGrace: c.HistoryPurgeGrace,
			Owns: owns, CollectUnowned: i == 0, Shard: strconv.Itoa(i)})
		if app.Missing(err) || (app.Unavailable(err) && ctx.Err() == nil) {
			log.Info("waiting for the bus", app.KeyReason, err.Error())
			if !sleep(ctx, time.Second) {
				return nil
			}
			continue
		}
		if err != nil {
			return err
		}
		err = e.Run(ctx)
		if !errors.Is(err, bus.ErrReset) {
			return err
		}
		// A stream under the engine was re-created: rebuild from the
		// buckets as they are, once they exist again.
		log.Info("rebuilding", app.KeyReason, err.Error())
	}
}

// leaseBucket opens the lease bucket, waiting while the bus is not
// provisioned yet (control provisions it at start), so that starting before
// control is a wait, not a crash loop. It also waits for everything else
// the engine opens: provisioning creates them one by one, and the lease
// bucket alone existing does not mean the object store does.
func leaseBucket(ctx context.Context, js jetstream.JetStream, log logr.Logger) (jetstream.KeyValue, error) {
	err := app.WaitProvisioned(logr.NewContext(ctx, log), js, app.Bucket(bus.BucketLeases), app.Bucket(bus.BucketConfig),
		app.Bucket(bus.BucketRows), app.ObjectStore(bus.ObjectStoreEnvelopes), app.Stream(bus.StreamSnapshots))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("wait for the bus: %w", err)
	}
	kv, err := js.KeyValue(ctx, bus.BucketLeases)
	if err != nil {
		return nil, fmt.Errorf("open lease bucket %s: %w", bus.BucketLeases, err)
	}
	return kv, nil
}

// sleep waits d; false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// replays runs the KollectReplay requests of the inventories owns accepts
// while ctx lasts (the shard is held), restarting after an error (the bus
// being provisioned again); the function returned stops it and waits until
// it stopped.
func replays(ctx context.Context, js jetstream.JetStream, c Config, log logr.Logger, owns func(busv1.NamespacedName) bool) func() {
	log = log.WithName("replayer")
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			err := replayer.New(js, replayer.Options{AckTimeout: c.ReplayAckTimeout, MaxReplays: c.MaxReplays,
				MaxReplaysPerNamespace: c.MaxReplaysPerNamespace, RunAttempts: c.ReplayMaxAttempts, Owns: owns, Log: log}).Run(ctx)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				log.Error(err, "replays stopped; restarting")
			}
			if !sleep(ctx, time.Second) {
				return
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
