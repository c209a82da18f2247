package query

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"
	"k8s.io/klog/v2"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/services/query/internal/server"
)

// DefaultSecurePort is where the API is served (HTTPS).
const DefaultSecurePort = 8443

// Config is the query service's configuration.
type Config struct {
	// Bus is the bus address and credentials (the read-only query user).
	Bus app.BusOptions
	// Metrics is where /metrics, /healthz and /readyz are served (plain
	// HTTP, apart from the API).
	Metrics app.MetricsOptions
	// Server configures the API server: port, certificates, the kubeconfig
	// of delegated authentication and authorization, page limits.
	Server server.Options
	// Log is the logger; the zero value discards.
	Log logr.Logger
}

// DefaultConfig returns the in-cluster bus, the API on :8443 with a
// self-signed certificate, and the default page limits.
func DefaultConfig() Config {
	return Config{Bus: app.DefaultBusOptions(), Metrics: app.DefaultMetricsOptions(),
		Server: server.Options{Port: DefaultSecurePort, Limits: server.DefaultLimits(), ChunkCacheBytes: history.DefaultChunkCacheBytes}}
}

// BindFlags registers the configuration's flags on fs, defaulting to c's
// values.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	c.Bus.BindFlags(fs)
	c.Metrics.BindFlags(fs)
	s := &c.Server
	fs.StringVar(&s.BindAddress, "bind-address", s.BindAddress, "IP address the API is served on; empty is every address.")
	fs.IntVar(&s.Port, "secure-port", s.Port, "HTTPS port of the API.")
	fs.StringVar(&s.CertFile, "tls-cert-file", s.CertFile,
		"Path of the API's PEM serving certificate (with --tls-private-key-file); empty generates a self-signed one.")
	fs.StringVar(&s.KeyFile, "tls-private-key-file", s.KeyFile, "Path of the PEM private key of --tls-cert-file.")
	fs.StringVar(&s.CertDir, "cert-dir", s.CertDir, "Directory a generated self-signed certificate is written to; empty keeps it in memory.")
	fs.StringVar(&s.Kubeconfig, "kubeconfig", s.Kubeconfig,
		"Path of the kubeconfig of the Kubernetes API server that authenticates and authorizes callers; empty uses the in-cluster service account.")
	fs.IntVar(&s.Limits.Revisions, "max-revisions-per-page", s.Limits.Revisions,
		"Most revisions or dead letters one list page holds (a larger limit is capped), and timeline entries one page holds (a larger limit is refused with 400).")
	fs.IntVar(&s.Limits.Rows, "max-rows-per-page", s.Limits.Rows,
		"Most rows (or diff entries) one page holds; a larger limit is refused with 400.")
	fs.IntVar(&s.Limits.DefaultRows, "default-rows-per-page", s.Limits.DefaultRows, "Rows per page when the caller asks for no limit.")
	fs.IntVar(&s.Limits.DiffRows, "max-diff-rows", s.Limits.DiffRows,
		"Most rows a diff compares (the rows of the chunks its two revisions do not share); a larger diff is refused with 422.")
	fs.DurationVar(&s.Limits.TimelineSpan, "max-timeline-span", s.Limits.TimelineSpan,
		"Longest window (since to until) a timeline request reads; a longer one is refused with 400. Without since and until a request reads this much up to the latest revision.")
	fs.IntVar(&s.Limits.ConcurrentReads, "max-concurrent-reads", s.Limits.ConcurrentReads,
		"Most requests reading rows at once (rows, diff, timeline, revisions); one more waits --read-wait, then is refused with 429.")
	fs.DurationVar(&s.Limits.Wait, "read-wait", s.Limits.Wait,
		"How long a request waits for one of --max-concurrent-reads before it is refused with 429 and a Retry-After.")
	fs.Int64Var(&s.ChunkCacheBytes, "chunk-cache-bytes", s.ChunkCacheBytes,
		"Bytes of snapshot chunks kept in memory, so that reading neighbouring revisions downloads only what changed; negative disables.")
}

// Validate reports settings that cannot work.
func (c Config) Validate() error {
	l := c.Server.Limits
	if l.Revisions < 1 || l.Rows < 1 || l.DefaultRows < 1 || l.DiffRows < 1 || l.ConcurrentReads < 1 {
		return fmt.Errorf("--max-revisions-per-page %d, --max-rows-per-page %d, --default-rows-per-page %d, --max-diff-rows %d, "+
			"--max-concurrent-reads %d: must be positive", l.Revisions, l.Rows, l.DefaultRows, l.DiffRows, l.ConcurrentReads)
	}
	if l.TimelineSpan <= 0 || l.Wait < 0 {
		return fmt.Errorf("--max-timeline-span %s must be positive, --read-wait %s not negative", l.TimelineSpan, l.Wait)
	}
	if (c.Server.CertFile == "") != (c.Server.KeyFile == "") {
		return errors.New("--tls-cert-file and --tls-private-key-file: set both or neither")
	}
	return c.Bus.Validate()
}

// Run serves the history API until ctx ends. It names the process's
// Kubernetes library logs "apiserver" (a global: RunWith, which shares its
// process with others, leaves it alone).
func Run(ctx context.Context, c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	klog.SetLogger(c.Log.WithName("apiserver"))
	nc, js, err := c.Bus.Connect(busv1.ServiceQuery)
	if err != nil {
		return err
	}
	defer nc.Close()
	srv := c.Metrics.Server(app.NewRegistry(), func() error {
		if !nc.IsConnected() {
			return errors.New("not connected to the bus")
		}
		return nil
	}, c.Log)
	if srv.Kube, err = (app.KubeOptions{Kubeconfig: c.Server.Kubeconfig}).RestConfig(string(busv1.ServiceQuery)); err != nil {
		return err
	}
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Run(ctx) })
	g.Go(func() error { return RunWith(ctx, js, c) })
	return g.Wait()
}

// RunWith is Run on an open JetStream context (tests, `kollect dev`).
func RunWith(ctx context.Context, js jetstream.JetStream, c Config) error {
	err := app.WaitProvisioned(logr.NewContext(ctx, c.Log), js, app.ObjectStore(bus.ObjectStoreEnvelopes), app.Stream(bus.StreamSnapshots))
	if err != nil {
		if ctx.Err() != nil {
			return nil //nolint:nilerr // stopped while waiting: not a failure
		}
		return fmt.Errorf("wait for the bus: %w", err)
	}
	s, err := server.New(js, c.Server)
	if err != nil {
		return err
	}
	c.Log.Info("serving the history API", "group", "query.kollect.dev/v1alpha1")
	return s.PrepareRun().RunWithContext(ctx)
}
