// Package app holds the process plumbing every Kollect service binary
// shares: Main (flags, logger, signal handling), one option struct per
// concern with its flags and constructor (BusOptions, LogOptions,
// LeaderOptions, KubeOptions, MetricsOptions, Process), WaitProvisioned,
// the shared log keys and the HTTP server for /metrics, /healthz and
// /readyz. It owns no metric, no flag of one service and no business logic.
package app
