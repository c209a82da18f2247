package collector

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/tools/leaderelection"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
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

	d := &deps{cfg: cfg, log: log, rest: restCfg, source: sourceCfg, js: js, pub: pub, metrics: metrics.New(), reconnects: rc}
	d.metrics.Profiles.MaxSeries = cfg.ProfileMaxSeries
	watchdog := leaderelection.NewLeaderHealthzAdaptor(20 * time.Second)
	srv := &app.Server{Addr: cfg.Metrics.BindAddress, Registry: d.metrics.Registry, Log: log,
		Healthz: func() error { return watchdog.Check(nil) },
		Readyz: func() error {
			if !nc.IsConnected() {
				return errors.New("not connected to NATS")
			}
			return d.ready()
		}}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Run(ctx) })
	g.Go(func() error {
		if !cfg.Leader.Enabled {
			return d.runActive(ctx)
		}
		return d.runElected(ctx, watchdog)
	})
	err = g.Wait()
	log.Info("collector stopped")
	return err
}
