package dev

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats-server/v2/server"
	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/aggregator"
	"kollect.dev/kollect/services/cli/internal/devbus"
	"kollect.dev/kollect/services/collector"
	"kollect.dev/kollect/services/control"
	"kollect.dev/kollect/services/databaseexporter"
	"kollect.dev/kollect/services/eventexporter"
	"kollect.dev/kollect/services/snapshotexporter"
)

// Options configure an all-in-one run.
type Options struct {
	// Rest reaches the API server.
	Rest *rest.Config
	// NATSURL is an existing bus; empty starts an embedded JetStream server
	// storing in NATSDir (a temporary folder when empty) on NATSPort (-1:
	// any free port).
	NATSURL  string
	NATSDir  string
	NATSPort int
	// NATSCredentials is the path of a NATS credentials file for NATSURL;
	// empty reads $KOLLECT_NATS_CREDENTIALS (app.BusOptions, which also
	// reads a user and password from the environment).
	NATSCredentials string
	// AllowInClusterSinks admits sinks on loopback, private, unique local
	// and CGNAT addresses.
	AllowInClusterSinks bool
	// Extract are the Profile compilation options (redaction names, CEL
	// cost limit) given to control and the collector alike.
	Extract extract.Options
	// AllowLinkLocalSinks admits sinks on link-local and cloud metadata
	// addresses.
	AllowLinkLocalSinks bool
	// DenySinkCIDRs are networks no sink may reach whatever the opt-ins.
	DenySinkCIDRs egress.Prefixes
	// AllowFileSinks admits file:// git sinks.
	AllowFileSinks bool
	// CredentialPolicy is the exporters' credential policy; control admits
	// cross-namespace Secret references as it allows them. The zero value
	// allows neither those nor ambient credentials.
	CredentialPolicy backend.CredentialPolicy
	// Credentials read the sinks' Secrets; nil reads them from the API
	// server.
	Credentials backend.Credentials
	// VerifyRequesters is control's --verify-requesters. Off by default:
	// dev.Run serves no webhook, so no requester can be recorded and a
	// Target naming a ServiceAccount or a sink naming Secrets would never
	// run. On, such objects need a requester sealed by a webhook-serving
	// control sharing the key Secret in RequesterKeyNamespace.
	VerifyRequesters bool
	// RequesterKeyNamespace holds control's requester key Secret; empty
	// keeps control's default (its own namespace).
	RequesterKeyNamespace string
	// MinExportInterval, when positive, is control's and the aggregator's
	// --min-export-interval instead of its default (10s); tests with short
	// periodic intervals lower it.
	MinExportInterval time.Duration
	// Tune adjusts each exporter family's runtime settings (tests shorten
	// retries); nil keeps the defaults.
	Tune func(*exporter.Config)
	// Ready, when set, receives the bus URL once the bus is provisioned and
	// every service started.
	Ready func(natsURL string)
	// Log receives every service's logs.
	Log logr.Logger
	// MetricsPort, when positive, serves each service's /metrics on
	// loopback as a deployment would, one port each from MetricsPort on in
	// the order of Services; zero serves none.
	MetricsPort int
	// BusFile is where the embedded bus's address, user and per-run
	// password are written (mode 0600) for the kollect CLI; empty is
	// devbus.Path(). Unused with NATSURL.
	BusFile string
	// Query, when Query.Serve, also serves the history API
	// (query.kollect.dev) on 127.0.0.1 (query.go).
	Query QueryOptions

	// busUser and busPassword authenticate the services to the embedded
	// bus.
	busUser, busPassword string
}

// busFile returns BusFile, else the default path of the credentials file.
func (o Options) busFile() (string, error) {
	if o.BusFile != "" {
		return o.BusFile, nil
	}
	return devbus.Path()
}

// Services returns the services Run starts, in the order of their metrics
// ports (Options.MetricsPort).
func Services() []busv1.Service {
	return []busv1.Service{busv1.ServiceControl, busv1.ServiceCollector, busv1.ServiceAggregator,
		busv1.FamilySnapshot.Exporter(), busv1.FamilyDatabase.Exporter(), busv1.FamilyEvent.Exporter()}
}

// MetricsAddress returns where service s serves /metrics, "0" when
// o.MetricsPort is zero.
func (o Options) MetricsAddress(s busv1.Service) string {
	if o.MetricsPort <= 0 {
		return "0"
	}
	for i, v := range Services() {
		if v == s {
			return fmt.Sprintf("127.0.0.1:%d", o.MetricsPort+i)
		}
	}
	return "0"
}

// Run starts the bus (unless o.NATSURL) and every service, and returns when
// ctx ends (nil) or the first service fails.
func Run(ctx context.Context, o Options) error {
	url := o.NATSURL
	if url == "" {
		dir := o.NATSDir
		if dir == "" {
			d, err := os.MkdirTemp("", "kollect-dev-nats-")
			if err != nil {
				return err
			}
			defer func() { _ = os.RemoveAll(d) }()
			dir = d
		}
		port := o.NATSPort
		if port == 0 {
			port = -1
		}
		srv, creds, err := startNATS(dir, port)
		if err != nil {
			return err
		}
		defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
		url = creds.URL
		o.NATSCredentials, o.busUser, o.busPassword = "", creds.User, creds.Password
		path, err := o.busFile()
		if err != nil {
			return err
		}
		if err := devbus.Write(path, creds); err != nil {
			return err
		}
		defer devbus.Remove(path, creds)
		o.Log.Info("embedded NATS JetStream started", "url", url, "dir", dir, "credentialsFile", path)
	}
	nc, js, err := o.bus(url).Connect(busv1.ServiceControl)
	if err != nil {
		return err
	}
	defer nc.Close()
	if err := bus.Provision(ctx, js, bus.DefaultOptions()); err != nil {
		return fmt.Errorf("provision the bus: %w", err)
	}
	creds := o.Credentials
	if creds == nil {
		kube, err := kubernetes.NewForConfig(o.Rest)
		if err != nil {
			return fmt.Errorf("build Kubernetes client: %w", err)
		}
		creds = exporter.KubeCredentials{Client: kube}
	}
	g, ctx := errgroup.WithContext(ctx)
	for name, run := range services(o, url) {
		g.Go(func() error {
			if err := run(ctx); err != nil && ctx.Err() == nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			return nil
		})
	}
	for _, f := range families(o) {
		c := exporter.DefaultConfig(f.family)
		c.Credentials, c.CredentialPolicy, c.Log = creds, o.CredentialPolicy, serviceLog(o.Log, f.family.Exporter())
		if o.Tune != nil {
			o.Tune(&c)
		}
		if addr := o.MetricsAddress(f.family.Exporter()); addr != "0" {
			reg := app.NewRegistry()
			c.Metrics = reg
			srv := &app.Server{Addr: addr, Registry: reg, Log: c.Log}
			g.Go(func() error { return srv.Run(ctx) })
		}
		g.Go(func() error {
			if err := exporter.Run(ctx, js, c, f.backends...); err != nil && ctx.Err() == nil {
				return fmt.Errorf("%s: %w", f.family.Exporter(), err)
			}
			return nil
		})
	}
	if o.Query.Serve {
		q, err := o.Query.start(ctx, g, js, o.Rest, serviceLog(o.Log, busv1.ServiceQuery))
		if err != nil {
			return err
		}
		defer q.remove()
	}
	if o.Ready != nil {
		o.Ready(url)
	}
	err = g.Wait()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// services returns the Run of control, the collector and the aggregator,
// configured for one process: no leader election, no webhook, metrics
// servers only with o.MetricsPort.
func services(o Options, url string) map[string]func(context.Context) error {
	ctl := control.DefaultConfig()
	ctl.Kube.Rest, ctl.Bus, ctl.ProvisionBus = o.Rest, o.bus(url), false
	ctl.AllowInClusterSinks, ctl.AllowLinkLocalSinks = o.AllowInClusterSinks, o.AllowLinkLocalSinks
	ctl.DenySinkCIDRs, ctl.AllowFileSinks = o.DenySinkCIDRs, o.AllowFileSinks
	ctl.AllowCrossNamespaceSecretRefs = o.CredentialPolicy.AllowCrossNamespaceSecretRefs
	ctl.VerifyRequesters = o.VerifyRequesters
	if o.RequesterKeyNamespace != "" {
		ctl.Webhook.Namespace = o.RequesterKeyNamespace
	}
	ctl.Metrics.BindAddress, ctl.Metrics.HealthProbeBindAddress, ctl.Leader.Enabled, ctl.Webhook.Port =
		o.MetricsAddress(busv1.ServiceControl), "0", false, 0
	ctl.Log, ctl.Extract = serviceLog(o.Log, busv1.ServiceControl), o.Extract
	// kollect dev serves metrics on 127.0.0.1 only, over plain HTTP: the
	// developer's own loopback scrape (MetricsAddress), not a cluster's.
	ctl.Metrics.Secure = false
	col := collector.DefaultConfig()
	col.Kube.Rest, col.Bus, col.Leader.Enabled, col.Metrics.BindAddress = o.Rest, o.bus(url), false, o.MetricsAddress(busv1.ServiceCollector)
	col.Log, col.Metrics.Secure = serviceLog(o.Log, busv1.ServiceCollector), false
	col.Extract = o.Extract
	agg := aggregator.DefaultConfig()
	agg.Bus, agg.Metrics.BindAddress, agg.Log = o.bus(url), o.MetricsAddress(busv1.ServiceAggregator), serviceLog(o.Log, busv1.ServiceAggregator)
	agg.Metrics.Secure = false
	if o.MinExportInterval > 0 {
		ctl.MinExportInterval, agg.MinExportInterval = o.MinExportInterval, o.MinExportInterval
	}
	return map[string]func(context.Context) error{
		"control":    func(ctx context.Context) error { return control.Run(ctx, ctl) },
		"collector":  func(ctx context.Context) error { return collector.Run(ctx, col) },
		"aggregator": func(ctx context.Context) error { return aggregator.Run(ctx, agg) },
	}
}

type family struct {
	family   busv1.Family
	backends []backend.Backend
}

// families returns the three exporter families with their backends.
func families(o Options) []family {
	snap := snapshotexporter.DefaultConfig()
	snap.ServiceConfig = o.egress(snap.ServiceConfig)
	snap.AllowFileSinks = o.AllowFileSinks
	db := databaseexporter.DefaultConfig()
	db.ServiceConfig = o.egress(db.ServiceConfig)
	ev := eventexporter.DefaultConfig()
	ev.ServiceConfig = o.egress(ev.ServiceConfig)
	return []family{
		{busv1.FamilySnapshot, snapshotexporter.Backends(snap)},
		{busv1.FamilyDatabase, databaseexporter.Backends(db)},
		{busv1.FamilyEvent, eventexporter.Backends(ev)},
	}
}

// devMaxStore is the embedded server's JetStream file store limit. Left
// unset, nats-server takes 75% of the free disk, and the bus's envelope
// object store reserves 4 GiB: a laptop with less than about 5.4 GiB free
// would refuse to provision it although a dev session writes megabytes.
const devMaxStore = 1 << 40

// startNATS starts an embedded JetStream server on loopback that admits
// only the user of the returned credentials, whose password is drawn for
// this run: another account of the host that reaches 127.0.0.1 can neither
// read the bus nor publish configs, connection tests or snapshots on it.
// No monitoring port is served.
func startNATS(dir string, port int) (*server.Server, devbus.Credentials, error) {
	creds := devbus.New("")
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true,
		JetStreamMaxStore: devMaxStore, StoreDir: dir, NoSigs: true, NoLog: true,
		Username: creds.User, Password: creds.Password})
	if err != nil {
		return nil, creds, fmt.Errorf("start embedded NATS: %w", err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, creds, fmt.Errorf("start embedded NATS: not ready within 10s")
	}
	creds.URL = s.ClientURL()
	return s, creds, nil
}

// egress returns c with the options' sink address policy.
func (o Options) egress(c exporter.ServiceConfig) exporter.ServiceConfig {
	c.AllowInClusterSinks, c.AllowLinkLocalSinks, c.DenySinkCIDRs = o.AllowInClusterSinks, o.AllowLinkLocalSinks, o.DenySinkCIDRs
	return c
}

// serviceLog is the logger of service s: its name and, as app.Main sets it
// in a service binary, the service key.
func serviceLog(log logr.Logger, s busv1.Service) logr.Logger {
	return log.WithName(string(s)).WithValues(app.KeyService, string(s))
}

// bus returns the bus options of every service: url with the options'
// credentials.
func (o Options) bus(url string) app.BusOptions {
	return app.BusOptions{URL: url, Credentials: o.NATSCredentials, User: o.busUser, Password: o.busPassword}
}
