package control

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/control/internal/access"
	"kollect.dev/kollect/services/control/internal/guardian"
	"kollect.dev/kollect/services/control/internal/probe"
	"kollect.dev/kollect/services/control/internal/reconcile"
	"kollect.dev/kollect/services/control/internal/reports"
	"kollect.dev/kollect/services/control/internal/requester"
)

// Config configures the control service.
type Config struct {
	// Bus is the bus address and credentials.
	Bus app.BusOptions
	// ProvisionBus creates or updates the bus's streams and buckets at start,
	// and again whenever any of them is missing (BusCheckInterval).
	ProvisionBus bool
	// BusCheckInterval is how often control's leader checks that the bus is
	// whole: it provisions again what is missing (with ProvisionBus) and
	// puts every object's config again when the config bucket was
	// re-created or emptied.
	BusCheckInterval time.Duration
	// BusLimits are the limits provisioning applies.
	BusLimits BusConfig
	// Metrics serves /metrics on BindAddress and /healthz and /readyz on
	// HealthProbeBindAddress.
	Metrics app.MetricsOptions
	// Leader makes only one replica reconcile at a time.
	Leader app.LeaderOptions
	// AllowInClusterSinks admits sink endpoints on loopback, private,
	// unique local and CGNAT addresses and in-cluster names; not link-local
	// or cloud metadata addresses.
	AllowInClusterSinks bool
	// DefaultServiceAccount is the ServiceAccount of its own namespace a
	// KollectTarget acts as when it sets no spec.serviceAccountName.
	DefaultServiceAccount string
	// VerifyRequesters makes a Target naming a ServiceAccount, or a sink
	// naming Secrets, run only when the webhook recorded a requester for
	// its current spec who may impersonate that ServiceAccount or get those
	// Secrets, reviewed again at every reconcile. Off, anyone who may write
	// the object chooses the identity (`kollect dev`, which runs no
	// webhook).
	VerifyRequesters bool
	// RequesterKey is the Secret (in Webhook.Namespace) holding the key
	// that seals requester records; control creates it when missing.
	RequesterKey string
	// AccessRecheck is how often control reviews a Target's access again
	// when nothing it depends on changed.
	AccessRecheck time.Duration
	// ServiceAccountAccess is how control answers what a Target's
	// ServiceAccount may list: AccessRBAC from its informer caches of RBAC
	// objects (access.RBAC), AccessReviews with SubjectAccessReviews (for
	// clusters that grant ServiceAccounts through another authorizer).
	ServiceAccountAccess string
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
	// MinExportInterval is the operator's floor for every binding's
	// exportMinInterval (--min-export-interval, the same value as the
	// aggregator's): admission refuses a shorter non-zero interval, and
	// reconcile raises one to it. Zero disables the floor.
	MinExportInterval time.Duration
	// Limits are the operator's per-namespace quotas and history cap.
	Limits LimitsConfig
	// ProbeTimeout bounds one connection test.
	ProbeTimeout time.Duration
	// ProbeRetry is the wait before probing again after a failed probe.
	ProbeRetry time.Duration
	// Webhook configures the validating admission webhook.
	Webhook WebhookConfig
	// Extract are the Profile compilation options (redaction names, CEL
	// cost limit); they must equal the collector's.
	Extract extract.Options
	// Kube is the API server connection.
	Kube app.KubeOptions
	// EventNamespace is where the Events of cluster-scoped objects
	// (KollectClusterTarget, KollectClusterInventory, KollectClusterScope) are
	// filed: the release namespace. Empty is $POD_NAMESPACE, the pod's
	// namespace, then kollect-system.
	EventNamespace string
	// Log is the logger; the zero value discards.
	Log logr.Logger
}

// DefaultServiceAccount is the ServiceAccount a Target acts as by default.
const DefaultServiceAccount = "kollect"

// The values of --service-account-access (Config.ServiceAccountAccess).
const (
	AccessRBAC    = "rbac"
	AccessReviews = "reviews"
)

// LeaderElectionID is the name of control's Lease.
const LeaderElectionID = "kollect-control"

// DefaultConfig returns the defaults for an in-cluster deployment.
func DefaultConfig() Config {
	kube := app.DefaultKubeOptions()
	kube.QPS, kube.Burst = 20, 30 // controller-runtime's
	return Config{
		Bus: app.DefaultBusOptions(), Kube: kube, ProvisionBus: true, BusCheckInterval: 10 * time.Second,
		Metrics: app.DefaultMetricsOptions(), Leader: app.DefaultLeaderOptions(LeaderElectionID),
		ProbeTimeout: 30 * time.Second, ProbeRetry: time.Minute,
		DefaultServiceAccount: DefaultServiceAccount, AccessRecheck: 2 * time.Minute, ServiceAccountAccess: AccessRBAC,
		VerifyRequesters: true, RequesterKey: "kollect-control-requester-key",
		Webhook: defaultWebhookConfig(), BusLimits: defaultBusConfig(),
		MinExportInterval: app.DefaultMinExportInterval, Limits: defaultLimitsConfig(),
	}
}

// Validate reports settings that cannot work, before Run connects to
// anything.
func (c Config) Validate() error {
	var errs []error
	if c.BusCheckInterval <= 0 {
		errs = append(errs, fmt.Errorf("--bus-check-interval %v: must be positive", c.BusCheckInterval))
	}
	if c.ServiceAccountAccess != AccessRBAC && c.ServiceAccountAccess != AccessReviews {
		errs = append(errs, fmt.Errorf("--service-account-access %q: must be %s or %s", c.ServiceAccountAccess, AccessRBAC, AccessReviews))
	}
	if err := errors.Join(append(errs, app.ValidateMinExportInterval(c.MinExportInterval), c.Limits.validate(), c.Bus.Validate(), c.Kube.Validate(), c.Leader.Validate())...); err != nil {
		return fmt.Errorf("control config: %w", err)
	}
	return nil
}

// BindFlags registers the flags that set c. --lease-duration,
// --renew-deadline and --retry-period are deprecated aliases of the
// --leader-election-* flags.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	c.Bus.BindFlags(fs)
	c.Kube.BindFlags(fs)
	fs.BoolVar(&c.ProvisionBus, "provision-bus", c.ProvisionBus, "Create or update the bus streams and buckets at start and whenever any is missing.")
	fs.DurationVar(&c.BusCheckInterval, "bus-check-interval", c.BusCheckInterval,
		"How often the leader checks the bus: provisions what is missing, puts every config again into a re-created config bucket.")
	c.Metrics.BindFlagsWithProbe(fs)
	c.Leader.BindFlags(fs)
	app.Alias(fs, "lease-duration", app.FlagLeaseDuration)
	app.Alias(fs, "renew-deadline", app.FlagRenewDeadline)
	app.Alias(fs, "retry-period", app.FlagRetryPeriod)
	fs.BoolVar(&c.AllowInClusterSinks, "allow-in-cluster-sinks", c.AllowInClusterSinks, "Admit sinks on loopback, private, unique local and CGNAT addresses (not link-local or cloud metadata).")
	fs.BoolVar(&c.AllowLinkLocalSinks, "allow-link-local-sinks", c.AllowLinkLocalSinks, "Admit sinks on link-local and cloud metadata addresses.")
	fs.Var(&c.DenySinkCIDRs, "deny-sink-cidrs", "Comma-separated networks no sink may name whatever the opt-ins, e.g. the cluster's Service and Pod CIDRs.")
	fs.BoolVar(&c.AllowFileSinks, "allow-file-sinks", c.AllowFileSinks, "Admit file:// git sinks (tests and development only).")
	fs.BoolVar(&c.AllowCrossNamespaceSecretRefs, "allow-cross-namespace-secret-refs", c.AllowCrossNamespaceSecretRefs,
		"Admit sinks whose spec.secretRef names a Secret in another namespace.")
	app.BindMinExportInterval(fs, &c.MinExportInterval)
	c.Limits.bindFlags(fs)
	fs.StringVar(&c.DefaultServiceAccount, "default-service-account", c.DefaultServiceAccount,
		"ServiceAccount (of the Target's own namespace) a KollectTarget acts as when it names none; empty: such Targets collect nothing.")
	fs.BoolVar(&c.VerifyRequesters, "verify-requesters", c.VerifyRequesters,
		"Run Targets naming a ServiceAccount and sinks naming Secrets only for a webhook-recorded requester who may use them.")
	fs.StringVar(&c.RequesterKey, "requester-key-secret", c.RequesterKey,
		"Secret (in --webhook-secret-namespace) holding the key that seals requester records; created when missing.")
	fs.DurationVar(&c.AccessRecheck, "access-recheck-interval", c.AccessRecheck, "How often each Target's access is reviewed again.")
	fs.StringVar(&c.ServiceAccountAccess, "service-account-access", c.ServiceAccountAccess,
		"How a Target's ServiceAccount's access is decided: rbac evaluates RBAC from control's informer caches; "+
			"reviews asks SubjectAccessReviews (for clusters granting ServiceAccounts through a webhook or another authorizer).")
	fs.DurationVar(&c.ProbeTimeout, "probe-timeout", c.ProbeTimeout, "Time limit of one connection test.")
	fs.DurationVar(&c.ProbeRetry, "probe-retry", c.ProbeRetry, "Wait before retrying a failed connection test.")
	fs.StringVar(&c.EventNamespace, "event-namespace", c.EventNamespace,
		"Namespace of the Events of cluster-scoped Kollect objects (the release namespace); empty is $POD_NAMESPACE, the pod's namespace, then "+
			app.DefaultLeaderNamespace+".")
	c.Webhook.bindFlags(fs)
	c.BusLimits.bindFlags(fs)
	c.Extract.BindFlags(fs)
}

// eventNamespace returns EventNamespace, else the namespace control runs
// in, the way the Lease's is found.
func (c Config) eventNamespace() string {
	if c.EventNamespace != "" {
		return c.EventNamespace
	}
	return app.LeaderOptions{}.LeaseNamespace()
}

// Egress returns the sink address policy the configuration allows.
func (c Config) Egress() egress.Policy {
	return egress.Policy{AllowPrivate: c.AllowInClusterSinks, AllowLinkLocal: c.AllowLinkLocalSinks,
		Deny: c.DenySinkCIDRs, AllowLocalFiles: c.AllowFileSinks}
}

// Run runs control until ctx ends.
func Run(ctx context.Context, c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	log := c.Log
	ctx = logr.NewContext(ctx, log)
	nc, js, err := c.Bus.Connect(busv1.ServiceControl)
	if err != nil {
		return err
	}
	defer nc.Close()
	busOpts, err := c.BusLimits.Options()
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
	kube, err := c.Kube.RestConfig(string(busv1.ServiceControl))
	if err != nil {
		return err
	}
	certDir, ca, err := c.Webhook.certificate(ctx, kube)
	if err != nil {
		return err
	}
	var sealer *requester.Sealer
	if c.VerifyRequesters || c.Webhook.Port > 0 {
		if sealer, err = c.sealer(ctx, kube); err != nil {
			return err
		}
	}
	mgr, err := newManager(c, kube, certDir, log)
	if err != nil {
		return err
	}
	if err := app.RegisterBuildInfo(ctrlmetrics.Registry); err != nil {
		return fmt.Errorf("register %s: %w", app.BuildInfoMetric, err)
	}
	store := reports.New(js, log.WithName("reports"), newObject)
	if err := mgr.Add(store); err != nil {
		return fmt.Errorf("add report store: %w", err)
	}
	cs, err := kubernetes.NewForConfig(reviewConfig(kube))
	if err != nil {
		return fmt.Errorf("create clientset: %w", err)
	}
	cache := access.NewCache(access.DefaultCacheTTL, access.DefaultCacheSize)
	deps := &reconcile.Deps{
		Client: mgr.GetClient(), KV: kv, Reports: store, Prober: probe.New(nc, c.ProbeTimeout),
		Recorder: reconcile.ReleaseRecorder{EventRecorder: mgr.GetEventRecorder("kollect-control"),
			Namespace: c.eventNamespace(), Scheme: mgr.GetScheme()}, Now: time.Now,
		Policy: reconcile.Policy{Egress: c.Egress(), ProbeRetry: c.ProbeRetry,
			DefaultServiceAccount: c.DefaultServiceAccount, AccessRecheck: c.AccessRecheck,
			AllowCrossNamespaceSecretRefs: c.AllowCrossNamespaceSecretRefs, MinExportInterval: c.MinExportInterval,
			Quotas: c.Limits.quotas()},
		Access: &access.Reviewer{Kube: cs, Mapper: mgr.GetRESTMapper(), Cache: cache}, AccessCache: cache,
	}
	if c.ServiceAccountAccess == AccessRBAC {
		deps.Access.(*access.Reviewer).RBAC = &access.RBAC{Reader: mgr.GetClient()}
	}
	if c.VerifyRequesters {
		deps.Requesters = sealer
	}
	if err := reconcile.Setup(ctx, mgr, deps, store, c.Extract); err != nil {
		return err
	}
	if err := c.Webhook.register(ctx, mgr, kube, deps, sealer, certDir, ca, c.Egress(), c.Extract); err != nil {
		return err
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

// Access reviews have a rate limiter of their own, above the rest of
// control's: a burst of them (a new namespace, a revoked binding) does not
// hold up status writes, nor writes them. SubjectAccessReviews are answered
// from the API server's memory.
const (
	reviewQPS   = 100
	reviewBurst = 200
)

// reviewConfig is kube with the access reviews' rate limits, unless kube's
// are higher.
func reviewConfig(kube *rest.Config) *rest.Config {
	c := rest.CopyConfig(kube)
	c.QPS, c.Burst = max(c.QPS, reviewQPS), max(c.Burst, reviewBurst)
	return c
}

func newManager(c Config, kube *rest.Config, certDir string, log logr.Logger) (manager.Manager, error) {
	var lock resourcelock.Interface
	if c.Leader.Enabled {
		if err := c.Leader.Validate(); err != nil {
			return nil, err
		}
		l, err := c.Leader.Lock(kube)
		if err != nil {
			return nil, err
		}
		lock = l
	}
	tlsOpts, err := c.Webhook.tlsOptions()
	if err != nil {
		return nil, err
	}
	skip := true
	mgr, err := ctrl.NewManager(kube, manager.Options{
		Scheme: scheme(), Logger: log,
		Metrics:                             metricsOptions(c.Metrics),
		HealthProbeBindAddress:              c.Metrics.HealthProbeBindAddress,
		LeaderElection:                      c.Leader.Enabled,
		LeaderElectionID:                    c.Leader.ID,
		LeaderElectionResourceLockInterface: lock,
		LeaderElectionReleaseOnCancel:       true,
		LeaseDuration:                       &c.Leader.LeaseDuration, RenewDeadline: &c.Leader.RenewDeadline, RetryPeriod: &c.Leader.RetryPeriod,
		Controller: config.Controller{SkipNameValidation: &skip},
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: c.Webhook.Host, Port: max(c.Webhook.Port, 0), CertDir: certDir, TLSOpts: tlsOpts,
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
	case busv1.KindReplay:
		return &v1alpha1.KollectReplay{}
	}
	return nil
}
