package exporter

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/history"
)

// Config configures one family's exporter runtime.
type Config struct {
	// Family is the sink family exported; it selects the durable consumer,
	// the sink configs watched and the connection-test subject.
	Family busv1.Family
	// Credentials reads the sinks' Secrets.
	Credentials backend.Credentials
	// CredentialPolicy says which Secrets and identities a sink may use;
	// the zero value allows its own namespace's Secrets only.
	CredentialPolicy backend.CredentialPolicy
	// RetryInitial is the first retry delay of a binding after a transient
	// failure; it doubles per attempt, with jitter, up to RetryMax.
	RetryInitial time.Duration
	// RetryMax bounds a binding's retry delay.
	RetryMax time.Duration
	// BreakerFailures is the number of consecutive failures of a sink after
	// which its circuit opens: no binding of the sink tries again for
	// BreakerCooldown.
	BreakerFailures int
	// BreakerCooldown is how long an open circuit stays open.
	BreakerCooldown time.Duration
	// ProbeTimeout bounds a connection test.
	ProbeTimeout time.Duration
	// ClaimTTL is how long a replica's claim on a binding lasts without
	// renewal (renewed every third of it while writing); another replica
	// waits at most this long after the claimant died.
	ClaimTTL time.Duration
	// WriteTimeout bounds one attempt to write a binding (building the
	// sink and its write): a sink that accepts and never answers fails
	// the attempt, transiently, after it, and the binding retries with
	// backoff. The claim is renewed while the write runs, so it may exceed
	// ClaimTTL.
	WriteTimeout time.Duration
	// ConfigPendingTimeout is how long a binding waits for the SinkConfig
	// generation its event names before the event fails for good
	// (SinkConfigPending, dead-lettered): a sink whose config never
	// appears does not pin its message forever.
	ConfigPendingTimeout time.Duration
	// MaxHeld bounds the snapshot events this replica keeps
	// unacknowledged while their bindings are written; MaxHeldPerNamespace
	// bounds those of the inventories of one namespace (the cluster
	// inventories count as one). An event over either bound is still
	// written, but acknowledged when it arrives (detached): a stalled
	// tenant never takes the consumer's MaxAckPending budget from the
	// others. Keep replicas × MaxHeld below the bus's
	// ExporterMaxAckPending.
	MaxHeld             int
	MaxHeldPerNamespace int
	// SecretCheckInterval is how often the Secrets of built sinks are
	// re-read; a sink whose Secret changed is rebuilt before its next
	// write. A permanent error also re-reads them at once.
	SecretCheckInterval time.Duration
	// ChunkCacheBytes bounds the cache of snapshot chunks the runtime keeps
	// for full writes, shared by every binding (consecutive revisions share
	// most chunks, so a full write reads only those that changed); zero
	// means history.DefaultChunkCacheBytes, negative disables the cache.
	ChunkCacheBytes int64
	// Loader, when set, is the loader every object is read through instead
	// of one built with ChunkCacheBytes (tests read its counters).
	Loader *history.Loader
	// Metrics registers the runtime's metrics; nil records none.
	Metrics prometheus.Registerer
	// Log is the logger; the zero value discards.
	Log logr.Logger
}

// DefaultConfig returns the defaults for family f: retries from 1s to 5m,
// circuit open for 1m after 5 consecutive failures, 30s connection tests,
// 5m writes, 10m for a sink config to appear, 64 events held of which 16
// per namespace, a chunk cache of history.DefaultChunkCacheBytes.
func DefaultConfig(f busv1.Family) Config {
	return Config{Family: f, RetryInitial: time.Second, RetryMax: 5 * time.Minute,
		BreakerFailures: 5, BreakerCooldown: time.Minute, ProbeTimeout: 30 * time.Second,
		ClaimTTL: time.Minute, WriteTimeout: 5 * time.Minute, ConfigPendingTimeout: 10 * time.Minute,
		MaxHeld: 64, MaxHeldPerNamespace: 16,
		SecretCheckInterval: 30 * time.Second, ChunkCacheBytes: history.DefaultChunkCacheBytes}
}

// validate checks c before Run starts anything.
func (c Config) validate() error {
	if c.Credentials == nil {
		return errors.New("exporter config: no credentials reader")
	}
	return c.Validate()
}

// Validate reports settings out of range; the Credentials, which Serve
// sets, are not checked.
func (c Config) Validate() error {
	switch {
	case c.Family.SinkKind() == "":
		return fmt.Errorf("exporter config: unknown family %q", c.Family)
	case c.RetryInitial <= 0 || c.RetryMax < c.RetryInitial:
		return fmt.Errorf("exporter config: retry delays %s..%s", c.RetryInitial, c.RetryMax)
	case c.BreakerFailures <= 0 || c.BreakerCooldown <= 0 || c.ProbeTimeout <= 0:
		return errors.New("exporter config: breaker and probe settings must be positive")
	case c.ClaimTTL < 3*time.Millisecond || c.SecretCheckInterval <= 0:
		return errors.New("exporter config: claim TTL and secret check interval must be positive")
	case c.WriteTimeout <= 0:
		return fmt.Errorf("exporter config: write timeout %s must be positive", c.WriteTimeout)
	case c.ConfigPendingTimeout <= 0:
		return fmt.Errorf("exporter config: config pending timeout %s must be positive", c.ConfigPendingTimeout)
	case c.MaxHeld < 1 || c.MaxHeldPerNamespace < 1 || c.MaxHeldPerNamespace > c.MaxHeld:
		return fmt.Errorf("exporter config: max held %d and max held per namespace %d must be positive, per namespace at most max held",
			c.MaxHeld, c.MaxHeldPerNamespace)
	}
	return nil
}
