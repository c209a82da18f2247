// Package app holds the process plumbing every Kollect service binary
// shares: Main (flags, logger, signal handling), Process (the Go runtime's
// memory limit and an opt-in pprof listener) and the HTTP server for
// /metrics, /healthz and /readyz. It owns no metric, flag of a service or
// business logic; each service registers its own and wires its own Run.
package app
