// Package metrics owns the collector's Prometheus metrics: informer objects
// per GVK, extraction duration and failures, bus publish latency, row writes,
// leadership, and the gauges KollectProfiles declare in spec.metrics
// (kollect_profile_<name>). pkg/app serves the registry, with /healthz and
// /readyz, on the metrics bind address.
//
// Every metric lives in a registry created per process, never the global
// one, so that two collectors can run in one test binary. metrics decides no
// values itself: the engine and the informer manager feed it.
package metrics
