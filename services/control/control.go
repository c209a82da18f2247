package control

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"github.com/nats-io/nats.go"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/control/internal/access"
	"kollect.dev/kollect/services/control/internal/guardian"
	"kollect.dev/kollect/services/control/internal/probe"
	"kollect.dev/kollect/services/control/internal/reconcile"
	"kollect.dev/kollect/services/control/internal/reports"
)

// Config configures the control service.
type Config struct {
	// NATSURL is the bus address.
	NATSURL string
	// NATSCredentials is the path of a NATS credentials file; empty for none.
	NATSCredentials string
	// ProvisionBus creates or updates the bus's streams and buckets at start,
	// and again whenever any of them is missing (BusCheckInterval).
	ProvisionBus bool
	// BusCheckInterval is how often control's leader checks that the bus is
	// whole: it provisions again what is missing (with ProvisionBus) and
	// puts every object's config again when the config bucket was
	// re-created or emptied.
	BusCheckInterval time.Duration
	// Bus are the limits provisioning applies.
	Bus BusConfig
	// MetricsAddr serves Prometheus metrics ("0" disables).
	MetricsAddr string
	// HealthAddr serves /healthz and /readyz ("0" disables).
	HealthAddr string
	// LeaderElection makes only one replica reconcile at a time.
	LeaderElection bool
	// LeaderElectionNamespace holds the Lease; empty means the namespace
	// the pod runs in.
	LeaderElectionNamespace string
	// LeaseDuration, RenewDeadline and RetryPeriod tune leader election.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// AllowInClusterSinks admits sink endpoints on loopback, private,
	// unique local and CGNAT addresses and in-cluster names; not link-local
	// or cloud metadata addresses.
	AllowInClusterSinks bool
	// DefaultServiceAccount is the ServiceAccount of its own namespace a
	// KollectTarget acts as when it sets no spec.serviceAccountName.
	DefaultServiceAccount string
	// AccessRecheck is how often control reviews a Target's access again
	// when nothing it depends on changed.
	AccessRecheck time.Duration
	// AllowLinkLocalSinks admits sink endpoints on link-local and cloud
	// metadata addresses: a separate opt-in.
	AllowLinkLocalSinks bool
	// DenySinkCIDRs are networks no sink endpoint may name whatever the
	// opt-ins, such as the cluster's Service and Pod CIDRs.
	DenySinkCIDRs egress.Prefixes
	// AllowFileSinks admits file:// git sink endpoints (tests and
	// `kollect dev`).
	AllowFileSinks bool
	// AllowCrossNamespaceSecretRefs admits sinks whose spec.secretRef
	// names another namespace (exporters have the same flag).
	AllowCrossNamespaceSecretRefs bool
	// ProbeTimeout bounds one connection test.
	ProbeTimeout time.Duration
	// ProbeRetry is the wait before probing again after a failed probe.
	ProbeRetry time.Duration
	// Webhook configures the validating admission webhook.
	Webhook WebhookConfig
	// Extract are the Profile compilation options (redaction names, CEL
	// cost limit); they must equal the collector's.
	Extract extract.Options
	// Kube is the API server connection; nil loads the kubeconfig or the
	// in-cluster config. Tests set it.
	Kube *rest.Config
	// Log is the logger; the zero value builds a production zap logger.
	Log logr.Logger
}

// DefaultServiceAccount is the ServiceAccount a Target acts as by default.
const DefaultServiceAccount = "kollect"

// LeaderElectionID is the name of control's Lease.
const LeaderElectionID = "kollect-control"

// DefaultConfig returns the defaults for an in-cluster deployment.
func DefaultConfig() Config {
	return Config{
		NATSURL: "nats://kollect-nats:4222", ProvisionBus: true, BusCheckInterval: 10 * time.Second,
		MetricsAddr: ":8080", HealthAddr: ":8081", LeaderElection: true,
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		ProbeTimeout: 30 * time.Second, ProbeRetry: time.Minute,
		DefaultServiceAccount: DefaultServiceAccount, AccessRecheck: 2 * time.Minute,
		Webhook: defaultWebhookConfig(), Bus: defaultBusConfig(),
	}
}

// BindFlags registers the flags that set c.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.NATSURL, "nats-url", c.NATSURL, "NATS server URL of the bus")
	fs.StringVar(&c.NATSCredentials, "nats-credentials", c.NATSCredentials, "path of a NATS credentials file")
	fs.BoolVar(&c.ProvisionBus, "provision-bus", c.ProvisionBus, "create or update the bus streams and buckets at start and whenever any is missing")
	fs.DurationVar(&c.BusCheckInterval, "bus-check-interval", c.BusCheckInterval,
		"how often the leader checks the bus: provisions what is missing, puts every config again into a re-created config bucket")
	fs.StringVar(&c.MetricsAddr, "metrics-bind-address", c.MetricsAddr, "metrics address (0 disables)")
	fs.StringVar(&c.HealthAddr, "health-probe-bind-address", c.HealthAddr, "health probe address (0 disables)")
	fs.BoolVar(&c.LeaderElection, "leader-elect", c.LeaderElection, "elect one active replica")
	fs.StringVar(&c.LeaderElectionNamespace, "leader-election-namespace", c.LeaderElectionNamespace, "namespace of the Lease")
	fs.DurationVar(&c.LeaseDuration, "lease-duration", c.LeaseDuration, "leader election lease duration")
	fs.DurationVar(&c.RenewDeadline, "renew-deadline", c.RenewDeadline, "leader election renew deadline")
	fs.DurationVar(&c.RetryPeriod, "retry-period", c.RetryPeriod, "leader election retry period")
	fs.BoolVar(&c.AllowInClusterSinks, "allow-in-cluster-sinks", c.AllowInClusterSinks, "admit sinks on loopback, private, unique local and CGNAT addresses (not link-local or cloud metadata)")
	fs.BoolVar(&c.AllowLinkLocalSinks, "allow-link-local-sinks", c.AllowLinkLocalSinks, "admit sinks on link-local and cloud metadata addresses")
	fs.Var(&c.DenySinkCIDRs, "deny-sink-cidrs", "comma-separated networks no sink may name whatever the opt-ins, e.g. the cluster's Service and Pod CIDRs")
	fs.BoolVar(&c.AllowFileSinks, "allow-file-sinks", c.AllowFileSinks, "admit file:// git sinks (tests and development only)")
	fs.BoolVar(&c.AllowCrossNamespaceSecretRefs, "allow-cross-namespace-secret-refs", c.AllowCrossNamespaceSecretRefs,
		"admit sinks whose spec.secretRef names a Secret in another namespace")
	fs.StringVar(&c.DefaultServiceAccount, "default-service-account", c.DefaultServiceAccount,
		"ServiceAccount (of the Target's own namespace) a KollectTarget acts as when it names none; empty: such Targets collect nothing")
	fs.DurationVar(&c.AccessRecheck, "access-recheck-interval", c.AccessRecheck, "how often each Target's access is reviewed again")
	fs.DurationVar(&c.ProbeTimeout, "probe-timeout", c.ProbeTimeout, "timeout of one connection test")
	fs.DurationVar(&c.ProbeRetry, "probe-retry", c.ProbeRetry, "wait before retrying a failed connection test")
	c.Webhook.bindFlags(fs)
	c.Bus.bindFlags(fs)
	c.Extract.BindFlags(fs)
}

// Egress returns the sink address policy the configuration allows.
func (c Config) Egress() egress.Policy {
	return egress.Policy{AllowPrivate: c.AllowInClusterSinks, AllowLinkLocal: c.AllowLinkLocalSinks,
		Deny: c.DenySinkCIDRs, AllowLocalFiles: c.AllowFileSinks}
}

// Run runs control until ctx ends.
func Run(ctx context.Context, c Config) error {
	log := c.Log
	if log.GetSink() == nil {
		z, err := zap.NewProduction()
		if err != nil {
			return fmt.Errorf("build logger: %w", err)
		}
		log = zapr.NewLogger(z).WithValues("service", busv1.ServiceControl)
	}
	ctx = logr.NewContext(ctx, log)
	var natsOpts []nats.Option
	if c.NATSCredentials != "" {
		natsOpts = append(natsOpts, nats.UserCredentials(c.NATSCredentials))
	}
	nc, js, err := bus.Connect(c.NATSURL, busv1.ServiceControl, natsOpts...)
	if err != nil {
		return err
	}
	defer nc.Close()
	busOpts, err := c.Bus.Options()
	if c.ProvisionBus && err != nil {
		return err
	}
	if c.ProvisionBus {
		if err := bus.Provision(ctx, js, busOpts); err != nil {
			return err
		}
	}
	kv, err := js.KeyValue(ctx, bus.BucketConfig)
	if err != nil {
		return fmt.Errorf("open KV bucket %s: %w", bus.BucketConfig, err)
	}
	kube := c.Kube
	if kube == nil {
		if kube, err = ctrl.GetConfig(); err != nil {
			return fmt.Errorf("load kubeconfig: %w", err)
		}
	}
	certDir, ca, err := c.Webhook.certificate(ctx, kube)
	if err != nil {
		return err
	}
	mgr, err := newManager(c, kube, certDir, log)
	if err != nil {
		return err
	}
	store := reports.New(js, log.WithName("reports"), newObject)
	if err := mgr.Add(store); err != nil {
		return fmt.Errorf("add report store: %w", err)
	}
	cs, err := kubernetes.NewForConfig(kube)
	if err != nil {
		return fmt.Errorf("create clientset: %w", err)
	}
	deps := &reconcile.Deps{
		Client: mgr.GetClient(), KV: kv, Reports: store, Prober: probe.New(nc, c.ProbeTimeout),
		Recorder: mgr.GetEventRecorder("kollect-control"), Now: time.Now,
		Policy: reconcile.Policy{Egress: c.Egress(), ProbeRetry: c.ProbeRetry,
			DefaultServiceAccount: c.DefaultServiceAccount, AccessRecheck: c.AccessRecheck,
			AllowCrossNamespaceSecretRefs: c.AllowCrossNamespaceSecretRefs},
		Access: &access.Reviewer{Kube: cs, Mapper: mgr.GetRESTMapper()},
	}
	if err := reconcile.Setup(ctx, mgr, deps, store, c.Extract); err != nil {
		return err
	}
	if err := c.Webhook.register(ctx, mgr, kube, deps, ca, c.Egress(), c.Extract); err != nil {
		return err
	}
	if c.BusCheckInterval <= 0 {
		return fmt.Errorf("--bus-check-interval %v: must be positive", c.BusCheckInterval)
	}
	g := &guardian.Guardian{JS: js, Options: busOpts, Provision: c.ProvisionBus, Interval: c.BusCheckInterval,
		Log: log.WithName("bus"), Resync: func(ctx context.Context) error {
			if !mgr.GetCache().WaitForCacheSync(ctx) {
				return ctx.Err()
			}
			return reconcile.Resync(logr.NewContext(ctx, log.WithName("resync")), deps, c.Extract)
		}}
	if err := mgr.Add(g); err != nil {
		return fmt.Errorf("add bus guardian: %w", err)
	}
	return mgr.Start(ctx)
}

func newManager(c Config, kube *rest.Config, certDir string, log logr.Logger) (manager.Manager, error) {
	skip := true
	mgr, err := ctrl.NewManager(kube, manager.Options{
		Scheme: scheme(), Logger: log,
		Metrics:                       metricsserver.Options{BindAddress: c.MetricsAddr},
		HealthProbeBindAddress:        c.HealthAddr,
		LeaderElection:                c.LeaderElection,
		LeaderElectionID:              LeaderElectionID,
		LeaderElectionNamespace:       c.LeaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 &c.LeaseDuration, RenewDeadline: &c.RenewDeadline, RetryPeriod: &c.RetryPeriod,
		Controller: config.Controller{SkipNameValidation: &skip},
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: c.Webhook.Host, Port: max(c.Webhook.Port, 0), CertDir: certDir,
		}),
	})
	if err != nil {
		return nil, fmt.Errorf("create manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("add health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return nil, fmt.Errorf("add ready check: %w", err)
	}
	return mgr, nil
}

func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(v1alpha1.AddToScheme(s))
	return s
}

// newObject returns an empty object of a kind named in status reports.
func newObject(k busv1.Kind) client.Object {
	switch k {
	case busv1.KindTarget:
		return &v1alpha1.KollectTarget{}
	case busv1.KindClusterTarget:
		return &v1alpha1.KollectClusterTarget{}
	case busv1.KindInventory:
		return &v1alpha1.KollectInventory{}
	case busv1.KindClusterInventory:
		return &v1alpha1.KollectClusterInventory{}
	case busv1.KindSnapshotSink:
		return &v1alpha1.KollectSnapshotSink{}
	case busv1.KindDatabaseSink:
		return &v1alpha1.KollectDatabaseSink{}
	case busv1.KindEventSink:
		return &v1alpha1.KollectEventSink{}
	case busv1.KindConnectionTest:
		return &v1alpha1.KollectConnectionTest{}
	}
	return nil
}
