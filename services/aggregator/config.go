package aggregator

import (
	"flag"
	"os"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
)

// Config is the aggregator's configuration.
type Config struct {
	// NATSURL is the bus address.
	NATSURL string
	// NATSCredentials is the path of a NATS credentials file; empty for none.
	NATSCredentials string
	// MetricsBindAddress serves /metrics, /healthz and /readyz; "0" or ""
	// disables.
	MetricsBindAddress string
	// Settle is how long a material change waits for more changes before it
	// is published.
	Settle time.Duration
	// LeaseTTL is how long the leader lease lasts without renewal; a
	// standby takes over at most this long after the leader vanished.
	LeaseTTL time.Duration
	// Identity names this replica in the lease; defaults to the host name.
	Identity string
	// MaxMessageBytes bounds an inline snapshot event; zero uses the bus
	// limits, larger envelopes go to the object store.
	MaxMessageBytes int
	// GCInterval is the longest time between collections of the envelope
	// store (engine Options.GCInterval); zero disables.
	GCInterval time.Duration
	// GCAfterBytes collects sooner once this many object bytes were written.
	GCAfterBytes int64
	// GCGrace is how old an unreferenced object must be to be deleted.
	GCGrace time.Duration
	// HistoryMaxBytes bounds the bytes each inventory's retained snapshot
	// history references; zero is unlimited.
	HistoryMaxBytes int64
	// BusCheckInterval is how often the leader checks that the rows and
	// config buckets are the ones it rebuilt from; a re-created one makes
	// it rebuild. Zero never checks.
	BusCheckInterval time.Duration
	// Log is the logger; the zero value discards.
	Log logr.Logger
	// Metrics registers the aggregator's metrics (engine.NewMetrics) in
	// RunWith; nil records none. Run sets it to the registry it serves on
	// /metrics.
	Metrics prometheus.Registerer
}

// DefaultConfig returns the defaults: local NATS, 250ms settle window, 15s
// lease, envelope store collected every 10 minutes or after 64 MiB written,
// with a one-minute grace.
func DefaultConfig() Config {
	host, _ := os.Hostname()
	return Config{NATSURL: "nats://127.0.0.1:4222", MetricsBindAddress: ":8080", Settle: 250 * time.Millisecond,
		LeaseTTL: 15 * time.Second, Identity: host, GCInterval: 10 * time.Minute,
		GCAfterBytes: 64 << 20, GCGrace: time.Minute, BusCheckInterval: 10 * time.Second}
}

// BindFlags registers the configuration's flags on fs, defaulting to c's
// values.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.NATSURL, "nats-url", c.NATSURL, "NATS server URL of the bus")
	fs.StringVar(&c.NATSCredentials, "nats-credentials", c.NATSCredentials, "path of a NATS credentials file")
	fs.StringVar(&c.MetricsBindAddress, "metrics-bind-address", c.MetricsBindAddress, "address of /metrics, /healthz and /readyz (0 disables)")
	fs.DurationVar(&c.Settle, "settle", c.Settle, "settle window that coalesces bursts of changes before publishing")
	fs.DurationVar(&c.LeaseTTL, "lease-ttl", c.LeaseTTL, "leader lease duration; a standby takes over within it")
	fs.StringVar(&c.Identity, "identity", c.Identity, "this replica's name in the leader lease")
	fs.IntVar(&c.MaxMessageBytes, "max-message-bytes", c.MaxMessageBytes,
		"largest inline snapshot event in bytes; 0 uses the bus limits")
	fs.DurationVar(&c.GCInterval, "gc-interval", c.GCInterval,
		"longest time between deletions of the snapshot chunks, manifests and deltas no retained event references (0 disables)")
	fs.Int64Var(&c.GCAfterBytes, "gc-after-bytes", c.GCAfterBytes,
		"collect sooner once this many snapshot object bytes were written (at most every 30s; 0: only by interval)")
	fs.DurationVar(&c.GCGrace, "gc-grace", c.GCGrace,
		"how old an unreferenced snapshot object must be before it is deleted, so a reader of an event that just left the history can finish")
	fs.DurationVar(&c.BusCheckInterval, "bus-check-interval", c.BusCheckInterval,
		"how often the rows and config buckets are checked for re-creation; one re-created makes the leader rebuild (0: never)")
	fs.Int64Var(&c.HistoryMaxBytes, "history-max-bytes", c.HistoryMaxBytes,
		"per inventory, the most bytes its retained snapshot history may reference; older events are dropped (0: unlimited)")
}
