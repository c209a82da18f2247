package tenancy

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/services/cli/dev"
	"kollect.dev/kollect/services/control"
)

// phaseConfig is how the operator configured Kollect for one phase.
type phaseConfig struct {
	name string
	// allowInCluster is the in-cluster sinks opt-in (dev.Options and the
	// webhook's control.Config).
	allowInCluster bool
}

var (
	// openPhase runs with the in-cluster sinks opt-in: the endpoints that
	// record what exporters send listen on loopback.
	openPhase = phaseConfig{name: "open", allowInCluster: true}
	// closedPhase runs with the default: no in-cluster sinks.
	closedPhase = phaseConfig{name: "closed"}
)

// phase is one running system: dev.Run (every service, no webhook) and a
// control instance that only serves the webhook.
type phase struct {
	config phaseConfig
	cancel context.CancelFunc
	done   chan error
}

// startPhase starts dev.Run on the suite's bus and the webhook-only control
// instance, and returns once both serve.
func startPhase(ctx context.Context, pc phaseConfig) (*phase, error) {
	runCtx, cancel := context.WithCancel(context.Background())
	p := &phase{config: pc, cancel: cancel, done: make(chan error, 2)}
	ready := make(chan struct{})
	opts := dev.Options{
		Rest: suite.kube.Config, NATSURL: suite.bus.URL, AllowInClusterSinks: pc.allowInCluster,
		Tune: tune, Ready: func(string) { close(ready) }, Log: suite.log.WithName(pc.name),
		// As a deployment does (the chart's default): only requesters the
		// webhook-only control recorded, with the key both share (F6).
		VerifyRequesters: true, RequesterKeyNamespace: suite.webhook.config.Namespace,
	}
	opts.DenySinkCIDRs = denyList()
	go func() { p.done <- dev.Run(runCtx, opts) }()
	select {
	case <-ready:
	case err := <-p.done:
		cancel()
		return nil, fmt.Errorf("dev.Run (%s phase) ended before it was ready: %w", pc.name, err)
	case <-ctx.Done():
		cancel()
		return nil, fmt.Errorf("dev.Run (%s phase) not ready: %w (then: %v)", pc.name, ctx.Err(), <-p.done)
	}
	cfg := webhookControl(pc)
	cfg.DenySinkCIDRs = denyList()
	go func() { p.done <- control.Run(runCtx, cfg) }()
	if err := waitWebhook(ctx); err != nil {
		_ = p.stop()
		return nil, fmt.Errorf("webhook (%s phase): %w", pc.name, err)
	}
	return p, nil
}

// stop cancels both and waits for them to return.
func (p *phase) stop() error {
	p.cancel()
	var errs []error
	for range 2 {
		if err := <-p.done; err != nil && !errors.Is(err, context.Canceled) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// switchPhase stops the running phase and starts pc.
func switchPhase(t *testing.T, pc phaseConfig) {
	t.Helper()
	if err := suite.phase.stop(); err != nil {
		t.Fatalf("stop the %s phase: %v", suite.phase.config.name, err)
	}
	suite.phase = nil
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	p, err := startPhase(ctx, pc)
	if err != nil {
		t.Fatalf("start the %s phase: %v", pc.name, err)
	}
	suite.phase = p
}

// webhookControl configures a control instance that serves the webhook
// only: leader election is on and the suite holds the Lease, so none of
// its controllers ever starts; the webhook server and the caches it reads
// run without leadership.
func webhookControl(pc phaseConfig) control.Config {
	c := control.DefaultConfig()
	c.Kube.Rest, c.Bus.URL, c.ProvisionBus = suite.kube.Config, suite.bus.URL, false
	c.Metrics.BindAddress, c.Metrics.HealthProbeBindAddress = "0", "0"
	c.Leader.Enabled, c.Leader.Namespace = true, leaseNamespace
	c.AllowInClusterSinks = pc.allowInCluster
	c.Webhook = suite.webhook.config
	c.Log = suite.log.WithName(pc.name + "-webhook")
	return c
}

// tune shortens the exporters' retries so that failures show within
// seconds.
func tune(c *exporter.Config) {
	c.RetryInitial, c.RetryMax = 50*time.Millisecond, time.Second
	c.BreakerCooldown, c.SecretCheckInterval = time.Second, time.Second
}
