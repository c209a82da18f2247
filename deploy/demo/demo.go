package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/go-logr/zapr"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/replay"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/aggregator"
	"kollect.dev/kollect/services/collector"
	"kollect.dev/kollect/services/control"
)

// Options tune a demo run.
type Options struct {
	// Once returns after showing the change instead of waiting for ctx.
	Once bool
	// Timeout bounds each wait for the services.
	Timeout time.Duration
}

var inventory = busv1.NamespacedName{Namespace: "team-a", Name: "workloads"}

// Run starts everything, shows the exported inventory and a change, then
// waits for ctx (unless Once) and stops everything it started.
func Run(ctx context.Context, out io.Writer, o Options) error {
	step(out, "starting kube-apiserver and etcd")
	kube, err := testenv.NewKube()
	if err != nil {
		return err
	}
	defer func() { _ = kube.Stop() }()
	dir, err := os.MkdirTemp("", "kollect-demo-nats-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	step(out, "starting NATS JetStream")
	nats, err := testenv.NewNATS(dir, -1)
	if err != nil {
		return err
	}
	defer nats.Stop()

	if err := bus.Provision(ctx, nats.JS, bus.DefaultOptions()); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := startServices(ctx, out, kube, nats.URL)
	step(out, "creating namespaces, Deployments and the Kollect resources")
	if err := seed(ctx, kube); err != nil {
		return err
	}
	first, err := waitFor(ctx, nats.JS, o.Timeout, errs, func(s *replay.Stored) bool { return s.Event.ItemCount == 3 })
	if err != nil {
		return err
	}
	if err := show(out, fmt.Sprintf("snapshot revision %d of %s", first.Event.Revision, inventory), envelope(ctx, nats.JS, first)); err != nil {
		return err
	}
	step(out, "changing the image of team-a/web to nginx:1.28")
	if err := setImage(ctx, kube, "team-a", "web", "nginx:1.28"); err != nil {
		return err
	}
	next, err := waitFor(ctx, nats.JS, o.Timeout, errs, func(s *replay.Stored) bool { return s.Event.Revision > first.Event.Revision })
	if err != nil {
		return err
	}
	if err := show(out, fmt.Sprintf("revision %d: the delta exporters apply", next.Event.Revision), next.Event.Delta); err != nil {
		return err
	}
	if o.Once {
		return nil
	}
	step(out, "everything is running; press Ctrl-C to stop")
	<-ctx.Done()
	return nil
}

// startServices runs control, the collector and the aggregator until ctx
// ends; their errors arrive on the returned channel.
func startServices(ctx context.Context, out io.Writer, kube *testenv.Kube, natsURL string) <-chan error {
	errs := make(chan error, 3)
	ctl := control.DefaultConfig()
	ctl.Kube, ctl.NATSURL, ctl.ProvisionBus = kube.Config, natsURL, false
	ctl.MetricsAddr, ctl.HealthAddr, ctl.LeaderElection, ctl.Webhook.Port = "0", "0", false, 0
	quiet := zapr.NewLogger(zap.NewNop())
	ctl.Log = quiet
	col := collector.DefaultConfig()
	col.Rest, col.NATSURL, col.LeaderElection, col.MetricsBindAddress = kube.Config, natsURL, false, "0"
	col.Logger = quiet
	agg := aggregator.DefaultConfig()
	agg.NATSURL, agg.Log = natsURL, quiet
	step(out, "starting control, collector and aggregator")
	run := func(name string, f func() error) {
		go func() {
			if err := f(); err != nil && ctx.Err() == nil {
				errs <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	run("control", func() error { return control.Run(ctx, ctl) })
	run("collector", func() error { return collector.Run(ctx, col) })
	run("aggregator", func() error { return aggregator.Run(ctx, agg) })
	return errs
}

// waitFor polls the inventory's last snapshot until ok accepts it.
func waitFor(ctx context.Context, js jetstream.JetStream, timeout time.Duration, errs <-chan error, ok func(*replay.Stored) bool) (*replay.Stored, error) {
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	deadline := time.After(timeout)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-errs:
			return nil, err
		case <-deadline:
			return nil, fmt.Errorf("no matching snapshot of %s within %v", inventory, timeout)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
			s, err := replay.Last(ctx, js, inventory)
			if err == nil && s != nil && ok(s) {
				return s, nil
			}
		}
	}
}

func envelope(ctx context.Context, js jetstream.JetStream, s *replay.Stored) any {
	env, err := replay.Envelope(ctx, js, &s.Event)
	if err != nil {
		return err.Error()
	}
	return env
}

func show(out io.Writer, title string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\n== %s\n%s\n", title, b)
	return nil
}

func step(out io.Writer, msg string) { fmt.Fprintf(out, "[demo] %s\n", msg) }
