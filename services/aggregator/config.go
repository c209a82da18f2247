package aggregator

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
)

// Config is the aggregator's configuration.
type Config struct {
	// Bus is the bus address and credentials.
	Bus app.BusOptions
	// Metrics is where /metrics, /healthz and /readyz are served.
	Metrics app.MetricsOptions
	// CollectorShards is the collector's shard count (its --shards): no
	// snapshot built from rows is published until the rows bucket holds
	// the rows-synced marker of every shard.
	CollectorShards int
	// Settle is how long a material change waits for more changes before it
	// is published.
	Settle time.Duration
	// Leader are the shard leases' settings: they are keys on the bus
	// (pkg/shard), so only LeaseDuration (how long a shard's lease lasts
	// without renewal: another replica takes the shard over at most this
	// long after its replica vanished) and Identity (unique per replica)
	// apply.
	Leader app.LeaderOptions
	// Shards is how many shards the inventories are spread over
	// (--shards): each shard, with its own lease, is worked on by one
	// replica at a time, and the live replicas share them, all active.
	// Every replica must use the same count; a replica started with
	// another waits until the replicas of the old count are gone. More
	// shards than replicas lets a replica joining or leaving move a small
	// share; each shard costs a rows watch and an engine.
	Shards int
	// MaxMessageBytes bounds an inline snapshot event; zero uses the bus
	// limits, larger envelopes go to the object store as chunks. The
	// default, 256 KiB, keeps a change of a large inventory from storing
	// its whole envelope again: only its changed chunks and the delta.
	MaxMessageBytes int
	// GCInterval is the longest time between collections of the envelope
	// store (engine Options.GCInterval); zero disables.
	GCInterval time.Duration
	// GCAfterBytes collects sooner once this many object bytes were written.
	GCAfterBytes int64
	// GCGrace is how old an unreferenced object must be to be deleted.
	GCGrace time.Duration
	// ReplayAckTimeout is how long a replayed revision may wait for the
	// sink's acknowledgement before it is published again (three times at
	// most, then the KollectReplay fails).
	ReplayAckTimeout time.Duration
	// MaxReplays is how many KollectReplays the leader runs at once; the
	// others wait, queued in arrival order (Pending, with a message).
	MaxReplays int
	// MaxReplaysPerNamespace is how many KollectReplays of one namespace
	// run at once, at most MaxReplays.
	MaxReplaysPerNamespace int
	// ReplayMaxAttempts is how many times a KollectReplay may start: a run
	// interrupted by a crash, restart or lost lease of the aggregator is
	// run again after a pause, and after this many interrupted runs the
	// replay fails.
	ReplayMaxAttempts int
	// HistoryRevisions is how many revisions of an inventory's snapshot
	// history are kept when its spec.history does not say; zero keeps
	// what the stream holds (--bus-snapshot-history).
	HistoryRevisions int64
	// HistoryMaxAge is how long revisions are kept when spec.history does
	// not say; zero keeps them until the stream's own age limit.
	HistoryMaxAge time.Duration
	// HistoryMaxBytes bounds the bytes each inventory's retained snapshot
	// history references when spec.history does not say; zero is unlimited.
	HistoryMaxBytes int64
	// MinExportInterval is the operator's floor for every binding's
	// periodic re-export interval (--min-export-interval, the same value as
	// control's): a shorter non-zero interval in a config on the bus is
	// raised to it. Zero disables the floor.
	MinExportInterval time.Duration
	// NamespaceBusBytes is each namespace's quota of bytes on the bus:
	// its inventories' retained snapshot events and the objects they
	// reference. Over it, the namespace's oldest revisions go first; a
	// KollectScope may lower it. Zero is unlimited.
	NamespaceBusBytes app.Bytes
	// NamespaceHistoryRevisions is each namespace's quota of revisions
	// retained by all its inventories together; a Scope may lower it. Zero
	// is unlimited.
	NamespaceHistoryRevisions int64
	// HistoryPurgeGrace is how long a deleted inventory's history stays on
	// the bus before it is purged; zero never purges.
	HistoryPurgeGrace time.Duration
	// BusCheckInterval is how often the leader checks that the rows and
	// config buckets are the ones it rebuilt from; a re-created one makes
	// it rebuild. Zero never checks.
	BusCheckInterval time.Duration
	// Log is the logger; the zero value discards.
	Log logr.Logger
	// MetricsRegistry registers the aggregator's metrics
	// (engine.NewMetrics) in RunWith; nil records none. Run sets it to the
	// registry it serves on /metrics.
	MetricsRegistry prometheus.Registerer
}

// DefaultShards is the default shard count, the chart's too: a few
// replicas each get several shards, so one joining or leaving moves a
// small share.
const DefaultShards = 8

// DefaultConfig returns the defaults: 8 shards, the in-cluster bus, 250ms settle
// window, 15s lease, snapshots inline up to 256 KiB, envelope store
// collected every 10 minutes or after 64 MiB written to the bus, with a
// one-minute grace; 4 replays at once, 2 per namespace, 3 runs each.
func DefaultConfig() Config {
	return Config{Bus: app.DefaultBusOptions(), Metrics: app.DefaultMetricsOptions(), Settle: 250 * time.Millisecond,
		MaxMessageBytes: 256 << 10, CollectorShards: bus.DefaultCollectorShards, Shards: DefaultShards,
		Leader: app.DefaultLeaderOptions(""), GCInterval: 10 * time.Minute,
		GCAfterBytes: 64 << 20, GCGrace: time.Minute, BusCheckInterval: 10 * time.Second,
		HistoryRevisions: 16, HistoryMaxAge: 7 * 24 * time.Hour, ReplayAckTimeout: 5 * time.Minute,
		MinExportInterval: app.DefaultMinExportInterval, NamespaceBusBytes: 1 << 30, NamespaceHistoryRevisions: 2000,
		HistoryPurgeGrace: time.Hour, MaxReplays: 4, MaxReplaysPerNamespace: 2, ReplayMaxAttempts: 3}
}

// Validate reports settings out of range; app.Main runs it before anything
// starts.
func (c Config) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	// The lease is on the bus (bus.LeaseKey): of the leader options only
	// the lease duration and the identity apply, not the Kubernetes Lease's.
	errs = append(errs, c.Bus.Validate())
	check(c.Leader.LeaseDuration > 0, "--%s %v: must be positive", app.FlagLeaseDuration, c.Leader.LeaseDuration)
	check(c.Leader.Identity != "", "--%s: must be set", app.FlagLeaderElectionIdentity)
	check(c.Shards >= 1 && c.Shards <= 1024, "--shards %d: must be between 1 and 1024", c.Shards)
	check(c.Settle >= 0, "--settle %v: must not be negative", c.Settle)
	check(c.CollectorShards >= 1, "--collector-shards %d: must be at least 1", c.CollectorShards)
	check(c.MaxMessageBytes >= 0, "--max-message-bytes %d: must not be negative", c.MaxMessageBytes)
	check(c.GCInterval >= 0, "--gc-interval %v: must not be negative", c.GCInterval)
	check(c.GCAfterBytes >= 0, "--gc-after-bytes %d: must not be negative", c.GCAfterBytes)
	check(c.GCGrace >= 0, "--gc-grace %v: must not be negative", c.GCGrace)
	check(c.BusCheckInterval >= 0, "--bus-check-interval %v: must not be negative", c.BusCheckInterval)
	check(c.ReplayAckTimeout > 0, "--replay-ack-timeout %v: must be positive", c.ReplayAckTimeout)
	check(c.MaxReplays > 0, "--max-replays %d: must be positive", c.MaxReplays)
	check(c.MaxReplaysPerNamespace > 0 && c.MaxReplaysPerNamespace <= c.MaxReplays,
		"--max-replays-per-namespace %d: must be positive and at most --max-replays (%d)", c.MaxReplaysPerNamespace, c.MaxReplays)
	check(c.ReplayMaxAttempts > 0, "--replay-max-attempts %d: must be positive", c.ReplayMaxAttempts)
	check(c.HistoryRevisions >= 0, "--history-revisions %d: must not be negative", c.HistoryRevisions)
	check(c.HistoryMaxAge >= 0, "--history-max-age %v: must not be negative", c.HistoryMaxAge)
	check(c.HistoryMaxBytes >= 0, "--history-max-bytes %d: must not be negative", c.HistoryMaxBytes)
	check(c.NamespaceBusBytes >= 0, "--namespace-bus-bytes %d: must not be negative", c.NamespaceBusBytes)
	check(c.NamespaceHistoryRevisions >= 0, "--namespace-history-revisions %d: must not be negative", c.NamespaceHistoryRevisions)
	check(c.HistoryPurgeGrace >= 0, "--history-purge-grace %v: must not be negative", c.HistoryPurgeGrace)
	errs = append(errs, app.ValidateMinExportInterval(c.MinExportInterval))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("aggregator config: %w", err)
	}
	return nil
}

// BindFlags registers the configuration's flags on fs, defaulting to c's
// values. --lease-ttl and --identity are deprecated aliases of
// --leader-election-lease-duration and --leader-election-identity.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	c.Bus.BindFlags(fs)
	c.Metrics.BindFlags(fs)
	c.Leader.BindLeaseFlags(fs)
	app.Alias(fs, "lease-ttl", app.FlagLeaseDuration)
	app.Alias(fs, "identity", app.FlagLeaderElectionIdentity)
	fs.IntVar(&c.Shards, "shards", c.Shards,
		"Shards the inventories are spread over (by namespace; a cluster inventory by name); the live replicas share them, all active. Every replica must use the same; use several per replica (e.g. 8 for up to 4 replicas).")
	fs.DurationVar(&c.Settle, "settle", c.Settle, "Settle window that coalesces bursts of changes before publishing.")
	fs.IntVar(&c.CollectorShards, "collector-shards", c.CollectorShards,
		"The collector's --shards: snapshots built from rows wait until every shard's rows-synced marker is on the bus.")
	fs.IntVar(&c.MaxMessageBytes, "max-message-bytes", c.MaxMessageBytes,
		"Largest inline snapshot event in bytes: a larger snapshot is stored as content-addressed chunks, so a change writes only the chunks it changed instead of the whole envelope again; 0 uses the bus limits.")
	fs.DurationVar(&c.GCInterval, "gc-interval", c.GCInterval,
		"Longest time between deletions of the snapshot chunks, manifests and deltas no retained event references; 0 disables.")
	fs.Int64Var(&c.GCAfterBytes, "gc-after-bytes", c.GCAfterBytes,
		"Collect sooner once this many bytes of snapshot events and objects were written (at most every 30s); 0 collects only by interval.")
	fs.DurationVar(&c.GCGrace, "gc-grace", c.GCGrace,
		"How old an unreferenced snapshot object must be before it is deleted, so that a reader of an event that just left the history can finish.")
	fs.DurationVar(&c.BusCheckInterval, "bus-check-interval", c.BusCheckInterval,
		"How often the rows and config buckets are checked for re-creation; one re-created makes the leader rebuild. 0 never checks.")
	fs.DurationVar(&c.ReplayAckTimeout, "replay-ack-timeout", c.ReplayAckTimeout,
		"How long a revision a KollectReplay delivers may wait for the sink's acknowledgement before it is published again (3 attempts).")
	fs.IntVar(&c.MaxReplays, "max-replays", c.MaxReplays,
		"KollectReplays the leader runs at once; others wait, Pending, queued in arrival order.")
	fs.IntVar(&c.MaxReplaysPerNamespace, "max-replays-per-namespace", c.MaxReplaysPerNamespace,
		"KollectReplays of one namespace run at once (at most --max-replays); others of that namespace wait, Pending.")
	fs.IntVar(&c.ReplayMaxAttempts, "replay-max-attempts", c.ReplayMaxAttempts,
		"Runs a KollectReplay may start: one interrupted by a crash, restart or lost lease of the aggregator runs again after a pause; after this many it fails.")
	fs.Int64Var(&c.HistoryRevisions, "history-revisions", c.HistoryRevisions,
		"Default for spec.history.revisions: revisions of each inventory's snapshot history kept; older events are dropped at each collection. 0 keeps what the stream holds.")
	fs.DurationVar(&c.HistoryMaxAge, "history-max-age", c.HistoryMaxAge,
		"Default for spec.history.maxAge: how long revisions are kept; 0 keeps them until the stream's own age limit.")
	fs.Int64Var(&c.HistoryMaxBytes, "history-max-bytes", c.HistoryMaxBytes,
		"Default for spec.history.maxBytes: the most bytes an inventory's retained snapshot history may reference; older events are dropped. 0 is unlimited.")
	app.BindMinExportInterval(fs, &c.MinExportInterval)
	fs.Var(&c.NamespaceBusBytes, "namespace-bus-bytes",
		"Each namespace's quota of bytes on the bus (its inventories' retained snapshot events and what they reference, e.g. 1Gi); over it the namespace's oldest revisions are dropped first. A KollectScope may lower it. 0 is unlimited.")
	fs.Int64Var(&c.NamespaceHistoryRevisions, "namespace-history-revisions", c.NamespaceHistoryRevisions,
		"Each namespace's quota of revisions retained by all its inventories together; a KollectScope may lower it. 0 is unlimited.")
	fs.DurationVar(&c.HistoryPurgeGrace, "history-purge-grace", c.HistoryPurgeGrace,
		"How long a deleted inventory's history stays on the bus before it is purged. 0 never purges.")
}
