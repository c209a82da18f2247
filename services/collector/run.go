package collector

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/shard"
	"kollect.dev/kollect/services/collector/internal/metrics"
	"kollect.dev/kollect/services/collector/internal/rowstore"
)

// Run runs the collector until ctx is cancelled. It returns an error only
// for invalid settings or when it cannot serve metrics; outages of the API
// server and NATS are retried, never fatal.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	log := cfg.Log
	restCfg, err := cfg.Kube.RestConfig(string(busv1.ServiceCollector))
	if err != nil {
		return err
	}
	sourceCfg := restCfg
	if cfg.SourceKubeconfig != "" {
		src := cfg.Kube
		src.Rest, src.Kubeconfig = nil, cfg.SourceKubeconfig
		if sourceCfg, err = src.RestConfig(string(busv1.ServiceCollector)); err != nil {
			return err
		}
	}
	rc := newReconnects()
	nc, js, err := cfg.Bus.Connect(busv1.ServiceCollector, nats.ReconnectHandler(rc.handler))
	if err != nil {
		return err
	}
	defer nc.Close()
	pub, err := rowstore.NewPublisher(nc, cfg.PublishWindow, cfg.PublishAckTimeout)
	if err != nil {
		return err
	}

	m := metrics.New()
	m.Profiles.MaxSeries = cfg.ProfileMaxSeries
	n := newNode(log, cfg.PublishAckTimeout+5*time.Second, func(active bool) {
		if active {
			m.Leader.Set(1)
		} else {
			m.Leader.Set(0)
		}
	})
	d := &deps{cfg: cfg, log: log, rest: restCfg, source: sourceCfg, js: js, pub: pub, metrics: m, reconnects: rc, node: n}
	srv := cfg.Metrics.Server(m.Registry, func() error {
		if !nc.IsConnected() {
			return errors.New("not connected to NATS")
		}
		return d.ready()
	}, log)
	srv.Healthz, srv.Kube = n.healthy, restCfg
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Run(ctx) })
	g.Go(func() error { return d.runActive(ctx) })
	g.Go(func() error { return d.runShards(ctx) })
	err = g.Wait()
	log.Info("collector stopped")
	return err
}

// runShards holds shards until ctx ends: leased on the bus, spread over
// the live replicas, or every shard when leases are off (one replica).
func (d *deps) runShards(ctx context.Context) error {
	if !d.cfg.Leader.Enabled {
		var wg sync.WaitGroup
		for i := range d.cfg.Shards {
			wg.Go(func() { _ = d.node.work(ctx, i) })
		}
		wg.Wait()
		return nil
	}
	kv, err := retry(ctx, d.log, "open the leases bucket", func() (jetstream.KeyValue, error) {
		return d.js.KeyValue(ctx, bus.BucketLeases)
	})
	if err != nil {
		return nil //nolint:nilerr // cancelled: a clean stop
	}
	grp, err := shard.New(shard.Config{KV: kv, Role: bus.ShardRole(busv1.ServiceCollector),
		Identity: d.cfg.Leader.Identity, Shards: d.cfg.Shards, TTL: d.cfg.Leader.LeaseDuration,
		Log: d.log.WithValues(app.KeyIdentity, d.cfg.Leader.Identity)})
	if err != nil {
		return err
	}
	return grp.Run(ctx, d.node.work)
}
