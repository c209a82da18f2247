package collector

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/collector/internal/logging"
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
	log := cfg.Logger
	if log.GetSink() == nil {
		l, err := logging.New(logging.Options{Development: cfg.LogDevelopment, Verbosity: cfg.LogVerbosity})
		if err != nil {
			return err
		}
		log = l
	}
	log = log.WithValues(logging.KeyService, busv1.ServiceCollector)
	restCfg, err := kubeConfig(cfg)
	if err != nil {
		return err
	}
	rc := newReconnects()
	opts := []nats.Option{nats.ReconnectHandler(rc.handler)}
	if cfg.NATSCredentials != "" {
		opts = append(opts, nats.UserCredentials(cfg.NATSCredentials))
	}
	nc, js, err := bus.Connect(cfg.NATSURL, busv1.ServiceCollector, opts...)
	if err != nil {
		return err
	}
	defer nc.Close()
	pub, err := rowstore.NewPublisher(nc, cfg.PublishWindow, cfg.PublishAckTimeout)
	if err != nil {
		return err
	}

	d := &deps{cfg: cfg, log: log, rest: restCfg, js: js, pub: pub, metrics: metrics.New(), reconnects: rc}
	watchdog := leaderelection.NewLeaderHealthzAdaptor(20 * time.Second)
	srv := &app.Server{Addr: cfg.MetricsBindAddress, Registry: d.metrics.Registry, Log: log,
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
		if !cfg.LeaderElection {
			return d.runActive(ctx)
		}
		return d.runElected(ctx, watchdog)
	})
	err = g.Wait()
	log.Info("collector stopped")
	return err
}

func kubeConfig(cfg Config) (*rest.Config, error) {
	var c *rest.Config
	if cfg.Rest != nil {
		c = rest.CopyConfig(cfg.Rest)
	} else {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = cfg.Kubeconfig
		var err error
		c, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("load kubeconfig: %w", err)
		}
	}
	if c.QPS == 0 {
		c.QPS, c.Burst = 50, 100
	}
	c.UserAgent = "kollect-" + string(busv1.ServiceCollector)
	return c, nil
}
