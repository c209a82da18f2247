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
}

// DefaultMetricsOptions returns :8080 for metrics and :8081 for control's
// probes.
func DefaultMetricsOptions() MetricsOptions {
	return MetricsOptions{BindAddress: DefaultMetricsAddress, HealthProbeBindAddress: DefaultProbeAddress}
}

// BindFlags registers --metrics-bind-address on fs, defaulting to o's value.
func (o *MetricsOptions) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.BindAddress, "metrics-bind-address", o.BindAddress, "Address of /metrics, /healthz and /readyz; 0 disables.")
}

// BindFlagsWithProbe registers --metrics-bind-address and --health-probe-bind-address on fs (control's
// probes have their own listener).
func (o *MetricsOptions) BindFlagsWithProbe(fs *flag.FlagSet) {
	fs.StringVar(&o.BindAddress, "metrics-bind-address", o.BindAddress, "Address of /metrics; 0 disables.")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress,
		"Address of /healthz and /readyz; 0 disables.")
}

// Server returns the server of /metrics (reg), /healthz and /readyz on
// BindAddress; healthz is nil unless the service has a liveness check.
func (o MetricsOptions) Server(reg *prometheus.Registry, readyz Check, log logr.Logger) *Server {
	return &Server{Addr: o.BindAddress, Registry: reg, Readyz: readyz, Log: log}
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
