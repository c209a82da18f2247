package collector

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/go-logr/logr"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/collector/internal/metrics"
	"kollect.dev/kollect/services/collector/internal/rowstore"
)

// Config configures the collector.
type Config struct {
	// Bus is the bus address and credentials.
	Bus app.BusOptions
	// Kube is the API server connection.
	Kube app.KubeOptions
	// SourceKubeconfig, when set, is the kubeconfig of the API server the
	// collected objects are listed and watched from; Kube still serves the
	// leader lease. Load tests point it at a simulated API server.
	SourceKubeconfig string
	// Workers is the number of objects evaluated in parallel.
	Workers int
	// MaxRowBytes is the largest row value the collector writes: the rows
	// bucket's MaxValueSize (bus MaxMessageBytes). A larger row is reported
	// as an extraction failure of its object instead.
	MaxRowBytes int
	// PublishWindow is the most row writes awaiting the bus's ack.
	PublishWindow int
	// PublishAckTimeout is how long a row write waits for its ack before it
	// counts as failed (its object is then evaluated and written again).
	PublishAckTimeout time.Duration
	// StatusInterval is the shortest time between two status reports of one
	// Target.
	StatusInterval time.Duration
	// DiscoveryRetryMax bounds the wait between discovery retries of a kind
	// that is not served yet.
	DiscoveryRetryMax time.Duration
	// BusCheckInterval is how often the active collector checks that the
	// rows and config buckets are the ones it loaded (not lost, re-created
	// or emptied); it also checks after every reconnect to NATS.
	BusCheckInterval time.Duration
	// ProfileMaxSeries caps the series of one KollectProfile metric of one
	// Target; over it the rest add up in one series labelled "_other".
	ProfileMaxSeries int
	// Extract are the Profile compilation options (redaction names, CEL
	// cost limit); control and the CLI must be given the same.
	Extract extract.Options
	// Shards is the number of shards the Targets are spread over
	// (shard.Of(<namespace>/<name>)); the replicas share them. Every
	// replica, and the aggregator, must use the same.
	Shards int
	// Leader are the shard leases' settings: the leases are keys on the
	// bus (pkg/shard), so only Enabled (off: this replica holds every
	// shard without leases, for a single process), LeaseDuration and
	// Identity apply, not the Kubernetes Lease's.
	Leader app.LeaderOptions
	// Metrics is where /metrics, /healthz and /readyz are served.
	Metrics app.MetricsOptions
	// Log is the logger; the zero value discards.
	Log logr.Logger
}

// DefaultShards is the default shard count: several shards per replica for
// up to a few replicas, so that a replica joining or leaving moves a
// fraction of the Targets.
const DefaultShards = bus.DefaultCollectorShards

// DefaultConfig returns the defaults: 8 shards leased on the bus for 15s,
// four workers, up to
// 4096 row writes awaiting their ack for 10s each, status at most every
// 500ms, metrics on :8080, 50 API requests a second (bursts of 100).
func DefaultConfig() Config {
	kube := app.DefaultKubeOptions()
	kube.QPS, kube.Burst = 50, 100
	return Config{
		Bus:               app.DefaultBusOptions(),
		Kube:              kube,
		Workers:           4,
		PublishWindow:     rowstore.DefaultWindow,
		MaxRowBytes:       int(bus.DefaultOptions().MaxMessageBytes),
		PublishAckTimeout: rowstore.DefaultAckTimeout,
		StatusInterval:    500 * time.Millisecond,
		DiscoveryRetryMax: 30 * time.Second,
		BusCheckInterval:  10 * time.Second,
		ProfileMaxSeries:  metrics.DefaultMaxSeries,
		Shards:            DefaultShards,
		Leader:            app.DefaultLeaderOptions(""),
		Metrics:           app.DefaultMetricsOptions(),
	}
}

// BindFlags registers a flag for every setting, defaulting to c's values.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	c.Bus.BindFlags(fs)
	c.Kube.BindFlags(fs)
	fs.StringVar(&c.SourceKubeconfig, "source-kubeconfig", c.SourceKubeconfig,
		"Path of a kubeconfig of the API server whose objects are collected, when not --kubeconfig's (load tests against a simulated API server); empty collects from --kubeconfig's.")
	fs.IntVar(&c.Workers, "workers", c.Workers, "Objects evaluated in parallel.")
	fs.IntVar(&c.PublishWindow, "publish-window", c.PublishWindow, "Most row writes awaiting the bus's acknowledgement.")
	fs.IntVar(&c.MaxRowBytes, "max-row-bytes", c.MaxRowBytes,
		"Largest row value written to the bus (the rows bucket's max value size); a larger row is an extraction failure.")
	fs.DurationVar(&c.PublishAckTimeout, "publish-ack-timeout", c.PublishAckTimeout, "How long a row write waits for its acknowledgement before it is retried.")
	fs.DurationVar(&c.StatusInterval, "status-interval", c.StatusInterval, "Shortest time between two status reports of one Target.")
	fs.DurationVar(&c.DiscoveryRetryMax, "discovery-retry-max", c.DiscoveryRetryMax, "Longest wait between discovery retries of a kind not served yet.")
	fs.DurationVar(&c.BusCheckInterval, "bus-check-interval", c.BusCheckInterval,
		"How often the rows and config buckets are checked for loss or re-creation (every row is then rewritten).")
	fs.IntVar(&c.ProfileMaxSeries, "profile-max-series", c.ProfileMaxSeries,
		`Most series of one KollectProfile metric of one Target; over it the rest add up in one series whose labels are "_other".`)
	fs.IntVar(&c.Shards, "shards", c.Shards,
		"Shards the Targets are spread over; every collector replica and the aggregator's --collector-shards must use the same.")
	c.Extract.BindFlags(fs)
	fs.BoolVar(&c.Leader.Enabled, app.FlagLeaderElect, c.Leader.Enabled,
		"Lease shards on the bus, spread over the live replicas; false holds every shard without leases (one replica only).")
	c.Leader.BindLeaseFlags(fs)
	c.Metrics.BindFlags(fs)
}

// maxShards bounds --shards: each shard is a lease renewed every few
// seconds and a marker the aggregator waits for.
const maxShards = 1024

// Validate reports every setting out of range.
func (c Config) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	errs = append(errs, c.Bus.Validate(), c.Kube.Validate())
	check(c.Shards >= 1 && c.Shards <= maxShards, "--shards %d: must be between 1 and %d", c.Shards, maxShards)
	if c.Leader.Enabled {
		check(c.Leader.LeaseDuration > 0, "--%s %v: must be positive", app.FlagLeaseDuration, c.Leader.LeaseDuration)
		check(c.Leader.Identity != "", "--%s: must be set", app.FlagLeaderElectionIdentity)
	}
	check(c.Workers >= 1, "--workers %d: must be at least 1", c.Workers)
	check(c.PublishWindow >= 1, "--publish-window %d: must be at least 1", c.PublishWindow)
	check(c.MaxRowBytes >= 0, "--max-row-bytes %d: must not be negative", c.MaxRowBytes)
	check(c.PublishAckTimeout > 0, "--publish-ack-timeout %v: must be positive", c.PublishAckTimeout)
	check(c.ProfileMaxSeries >= 1, "--profile-max-series %d: must be at least 1", c.ProfileMaxSeries)
	check(c.StatusInterval > 0, "--status-interval %v: must be positive", c.StatusInterval)
	check(c.BusCheckInterval > 0, "--bus-check-interval %v: must be positive", c.BusCheckInterval)
	check(c.DiscoveryRetryMax > 0, "--discovery-retry-max %v: must be positive", c.DiscoveryRetryMax)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("collector config: %w", err)
	}
	return nil
}
