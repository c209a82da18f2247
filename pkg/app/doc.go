// Package app holds the process plumbing every Kollect service binary
// shares: the HTTP server for /metrics, /healthz and /readyz. It owns no
// metric, flag or business logic; each service registers its own metrics
// and wires its own Run.
package app
