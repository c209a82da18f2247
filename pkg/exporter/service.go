package exporter

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/go-logr/logr"
	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/kubernetes"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
)

// ServiceConfig is the configuration every exporter service binary shares;
// the family services embed it and add their backends' options.
type ServiceConfig struct {
	// Bus is the bus address and credentials.
	Bus app.BusOptions
	// Kube is the API server connection, for reading Secrets.
	Kube app.KubeOptions
	// Metrics is where /metrics, /healthz and /readyz are served.
	Metrics app.MetricsOptions
	// AllowInClusterSinks lets sinks connect to loopback, private, unique
	// local and CGNAT addresses (the operator's in-cluster sinks opt-in);
	// not to link-local or cloud metadata addresses.
	AllowInClusterSinks bool
	// AllowLinkLocalSinks lets sinks connect to link-local and cloud
	// metadata addresses: a separate opt-in, never implied by
	// AllowInClusterSinks.
	AllowLinkLocalSinks bool
	// DenySinkCIDRs are networks no sink may reach whatever the opt-ins,
	// such as the cluster's Service and Pod CIDRs.
	DenySinkCIDRs egress.Prefixes
	// Runtime tunes retries, breakers, claims and Secret checks; Family,
	// Credentials, Metrics and Log are set by Serve.
	Runtime Config
	// Log is the logger; the zero value discards.
	Log logr.Logger
}

// DefaultServiceConfig returns the defaults of family f's exporter: the
// in-cluster bus address, metrics on :8080, DefaultConfig(f).
func DefaultServiceConfig(f busv1.Family) ServiceConfig {
	return ServiceConfig{Bus: app.DefaultBusOptions(), Kube: app.DefaultKubeOptions(), Metrics: app.DefaultMetricsOptions(),
		Runtime: DefaultConfig(f)}
}

// BindFlags registers a flag for every setting, defaulting to c's values.
func (c *ServiceConfig) BindFlags(fs *flag.FlagSet) {
	r := &c.Runtime
	c.Bus.BindFlags(fs)
	c.Kube.BindFlags(fs)
	c.Metrics.BindFlags(fs)
	fs.BoolVar(&c.AllowInClusterSinks, "allow-in-cluster-sinks", c.AllowInClusterSinks, "Let sinks connect to loopback, private, unique local and CGNAT addresses (not link-local or cloud metadata).")
	fs.BoolVar(&c.AllowLinkLocalSinks, "allow-link-local-sinks", c.AllowLinkLocalSinks, "Let sinks connect to link-local and cloud metadata addresses.")
	fs.Var(&c.DenySinkCIDRs, "deny-sink-cidrs", "Comma-separated networks no sink may reach whatever the opt-ins, e.g. the cluster's Service and Pod CIDRs.")
	fs.DurationVar(&r.RetryInitial, "retry-initial", r.RetryInitial, "First retry delay of a binding after a transient failure.")
	fs.DurationVar(&r.RetryMax, "retry-max", r.RetryMax, "Longest retry delay of a binding.")
	fs.IntVar(&r.BreakerFailures, "breaker-failures", r.BreakerFailures, "Consecutive failures of a sink that open its circuit.")
	fs.DurationVar(&r.BreakerCooldown, "breaker-cooldown", r.BreakerCooldown, "How long an open circuit stays open.")
	fs.DurationVar(&r.ProbeTimeout, "probe-timeout", r.ProbeTimeout, "Time limit of a connection test.")
	fs.DurationVar(&r.ClaimTTL, "claim-ttl", r.ClaimTTL, "Lifetime of a replica's claim on a binding without renewal; a write whose claim could not be renewed stops a sixth of it before it expires.")
	fs.DurationVar(&r.WriteTimeout, "write-timeout", r.WriteTimeout, "Time limit of one attempt to write a binding; a write over it fails transiently and is retried with backoff.")
	fs.DurationVar(&r.ConfigPendingTimeout, "config-pending-timeout", r.ConfigPendingTimeout, "How long a binding waits for the sink config its event names before the event is dead-lettered (SinkConfigPending).")
	fs.IntVar(&r.MaxHeld, "max-held", r.MaxHeld, "Snapshot events a replica keeps unacknowledged while writing them; over it events are acknowledged on arrival and written all the same. Keep replicas x max-held below the bus's exporter MaxAckPending (256).")
	fs.IntVar(&r.MaxHeldPerNamespace, "max-held-per-namespace", r.MaxHeldPerNamespace, "Snapshot events of the inventories of one namespace a replica keeps unacknowledged (cluster inventories count as one namespace); at most --max-held.")
	fs.DurationVar(&r.SecretCheckInterval, "secret-check-interval", r.SecretCheckInterval, "How often Secrets of built sinks are re-read to notice rotation.")
	fs.Int64Var(&r.ChunkCacheBytes, "chunk-cache-bytes", r.ChunkCacheBytes, "Bytes of snapshot chunks cached for full writes; 0 uses the default, negative disables the cache.")
	r.CredentialPolicy.BindFlags(fs)
}

// Validate reports settings that cannot work: the bus, the API server
// options and the runtime's.
func (c ServiceConfig) Validate() error {
	return errors.Join(c.Bus.Validate(), c.Kube.Validate(), c.Runtime.Validate())
}

// Egress returns the endpoint address policy the configuration allows.
func (c ServiceConfig) Egress() egress.Policy {
	return egress.Policy{AllowPrivate: c.AllowInClusterSinks, AllowLinkLocal: c.AllowLinkLocalSinks, Deny: c.DenySinkCIDRs}
}

// Serve connects to the bus and the API server, serves metrics and probes,
// and runs the family's exporter with backends until ctx ends.
func Serve(ctx context.Context, c ServiceConfig, backends ...backend.Backend) error {
	rc, err := c.Kube.RestConfig(string(c.Runtime.Family.Exporter()))
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return fmt.Errorf("build Kubernetes client: %w", err)
	}
	nc, js, err := c.Bus.Connect(c.Runtime.Family.Exporter())
	if err != nil {
		return err
	}
	defer nc.Close()
	reg := app.NewRegistry()
	rt := c.Runtime
	rt.Credentials, rt.Metrics, rt.Log = KubeCredentials{Client: kube}, reg, c.Log
	srv := c.Metrics.Server(reg, func() error {
		if !nc.IsConnected() {
			return errors.New("not connected to the bus")
		}
		return nil
	}, c.Log)
	srv.Kube = rc
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Run(ctx) })
	g.Go(func() error { return Run(ctx, js, rt, backends...) })
	return g.Wait()
}
