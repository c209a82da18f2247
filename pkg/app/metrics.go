package app

import (
	"flag"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// DefaultMetricsAddress serves every service's /metrics; DefaultProbeAddress
// serves control's /healthz and /readyz (controller-runtime's manager keeps
// them apart; every other service serves them with /metrics).
const (
	DefaultMetricsAddress = ":8080"
	DefaultProbeAddress   = ":8081"
)

// MetricsOptions say where a service serves metrics and probes.
type MetricsOptions struct {
	// BindAddress serves /metrics (and /healthz and /readyz, except in
	// control); "0" or "" disables.
	BindAddress string
	// HealthProbeBindAddress serves control's /healthz and /readyz; "0"
	// disables. Only control binds it (BindFlagsWithProbe).
	HealthProbeBindAddress string
	// Secure serves BindAddress over HTTPS, and /metrics only to callers
	// the Kubernetes API server authenticates (TokenReview) and authorizes
	// (SubjectAccessReview: get on the non-resource URL /metrics), as
	// kube-rbac-proxy does; the probes stay open. False serves plain HTTP
	// to anyone: an explicit opt-out (the load test and `kollect dev`
	// scrape 127.0.0.1).
	Secure bool
	// CertFile and KeyFile are the HTTPS serving certificate; empty
	// generates a self-signed one in memory.
	CertFile, KeyFile string
}

// DefaultMetricsOptions returns :8080 for metrics, secured, and :8081 for
// control's probes.
func DefaultMetricsOptions() MetricsOptions {
	return MetricsOptions{BindAddress: DefaultMetricsAddress, HealthProbeBindAddress: DefaultProbeAddress, Secure: true}
}

// BindFlags registers --metrics-bind-address, --metrics-secure and the
// metrics certificate on fs, defaulting to o's values.
func (o *MetricsOptions) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.BindAddress, "metrics-bind-address", o.BindAddress, "Address of /metrics, /healthz and /readyz; 0 disables.")
	o.bindSecure(fs)
}

// BindFlagsWithProbe registers --metrics-bind-address, --metrics-secure,
// the metrics certificate and --health-probe-bind-address on fs (control's
// probes have their own listener).
func (o *MetricsOptions) BindFlagsWithProbe(fs *flag.FlagSet) {
	fs.StringVar(&o.BindAddress, "metrics-bind-address", o.BindAddress, "Address of /metrics; 0 disables.")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress,
		"Address of /healthz and /readyz; 0 disables.")
	o.bindSecure(fs)
}

func (o *MetricsOptions) bindSecure(fs *flag.FlagSet) {
	fs.BoolVar(&o.Secure, "metrics-secure", o.Secure, "Serve /metrics over HTTPS to callers the Kubernetes API server authenticates "+
		"and authorizes (get on the non-resource URL /metrics); false serves plain HTTP to anyone.")
	fs.StringVar(&o.CertFile, "metrics-tls-cert-file", o.CertFile, "HTTPS certificate of the metrics address; empty generates a self-signed one.")
	fs.StringVar(&o.KeyFile, "metrics-tls-private-key-file", o.KeyFile, "Private key of --metrics-tls-cert-file.")
}

// Server returns the server of /metrics (reg), /healthz and /readyz on
// BindAddress; healthz is nil unless the service has a liveness check.
// The caller sets Server.Kube to its API server connection when it has one.
func (o MetricsOptions) Server(reg *prometheus.Registry, readyz Check, log logr.Logger) *Server {
	return &Server{Addr: o.BindAddress, Registry: reg, Readyz: readyz, Log: log, Secure: o.Secure, CertFile: o.CertFile, KeyFile: o.KeyFile}
}

// NewRegistry returns a registry holding ServiceCollectors.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(ServiceCollectors()...)
	return reg
}

// ServiceCollectors are the Go runtime and process collectors and
// kollect_build_info, which every service serves.
func ServiceCollectors() []prometheus.Collector {
	return []prometheus.Collector{collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), BuildInfo()}
}
