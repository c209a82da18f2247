package collector

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/rest"

	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/collector/internal/rowstore"
)

// Config configures the collector.
type Config struct {
	// NATSURL is the bus address.
	NATSURL string
	// NATSCredentials is the path of a NATS credentials file; empty for none.
	NATSCredentials string
	// Kubeconfig is the path of a kubeconfig; empty uses $KUBECONFIG, then
	// the in-cluster service account.
	Kubeconfig string
	// Rest, when set, is used instead of Kubeconfig (tests, `kollect dev`).
	Rest *rest.Config
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
	// Extract are the Profile compilation options (redaction names, CEL
	// cost limit); control and the CLI must be given the same.
	Extract extract.Options
	// LeaderElection makes this replica wait for the Lease before collecting.
	LeaderElection bool
	// LeaderElectionNamespace and LeaderElectionID name the Lease.
	LeaderElectionNamespace, LeaderElectionID string
	// LeaseDuration, RenewDeadline and RetryPeriod tune leader election.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Identity is this replica's leader-election identity.
	Identity string
	// MetricsBindAddress serves /metrics, /healthz and /readyz; "0" disables.
	MetricsBindAddress string
	// LogDevelopment selects console logs; LogVerbosity the highest V-level.
	LogDevelopment bool
	LogVerbosity   int
	// Logger, when set, is used instead of building one from the Log fields.
	Logger logr.Logger
}

// DefaultConfig returns the defaults: leader election in kollect-system,
// four workers, up to 4096 row writes awaiting their ack for 10s each,
// status at most every 500ms, metrics on :8080.
func DefaultConfig() Config {
	host, _ := os.Hostname()
	return Config{
		NATSURL:                 "nats://kollect-nats.kollect-system:4222",
		Workers:                 4,
		PublishWindow:           rowstore.DefaultWindow,
		MaxRowBytes:             int(bus.DefaultOptions().MaxMessageBytes),
		PublishAckTimeout:       rowstore.DefaultAckTimeout,
		StatusInterval:          500 * time.Millisecond,
		DiscoveryRetryMax:       30 * time.Second,
		BusCheckInterval:        10 * time.Second,
		LeaderElection:          true,
		LeaderElectionNamespace: "kollect-system",
		LeaderElectionID:        "kollect-collector",
		LeaseDuration:           15 * time.Second,
		RenewDeadline:           10 * time.Second,
		RetryPeriod:             2 * time.Second,
		Identity:                host + "_" + rand.String(6),
		MetricsBindAddress:      ":8080",
	}
}

// BindFlags registers a flag for every setting, defaulting to c's values.
func (c *Config) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.NATSURL, "nats-url", c.NATSURL, "NATS server URL of the Kollect bus.")
	fs.StringVar(&c.NATSCredentials, "nats-credentials", c.NATSCredentials, "Path of a NATS credentials file.")
	fs.StringVar(&c.Kubeconfig, "kubeconfig", c.Kubeconfig, "Path of a kubeconfig; empty uses $KUBECONFIG or the in-cluster service account.")
	fs.IntVar(&c.Workers, "workers", c.Workers, "Objects evaluated in parallel.")
	fs.IntVar(&c.PublishWindow, "publish-window", c.PublishWindow, "Most row writes awaiting the bus's acknowledgement.")
	fs.IntVar(&c.MaxRowBytes, "max-row-bytes", c.MaxRowBytes,
		"largest row value written to the bus (the rows bucket's max value size); a larger row is an extraction failure")
	fs.DurationVar(&c.PublishAckTimeout, "publish-ack-timeout", c.PublishAckTimeout, "How long a row write waits for its acknowledgement before it is retried.")
	fs.DurationVar(&c.StatusInterval, "status-interval", c.StatusInterval, "Shortest time between two status reports of one Target.")
	fs.DurationVar(&c.DiscoveryRetryMax, "discovery-retry-max", c.DiscoveryRetryMax, "Longest wait between discovery retries of a kind not served yet.")
	fs.DurationVar(&c.BusCheckInterval, "bus-check-interval", c.BusCheckInterval,
		"How often the rows and config buckets are checked for loss or re-creation (every row is then rewritten).")
	c.Extract.BindFlags(fs)
	fs.BoolVar(&c.LeaderElection, "leader-elect", c.LeaderElection, "Wait for the Lease before collecting, so one replica is active.")
	fs.StringVar(&c.LeaderElectionNamespace, "leader-election-namespace", c.LeaderElectionNamespace, "Namespace of the Lease.")
	fs.StringVar(&c.LeaderElectionID, "leader-election-id", c.LeaderElectionID, "Name of the Lease.")
	fs.DurationVar(&c.LeaseDuration, "leader-election-lease-duration", c.LeaseDuration, "How long a standby waits before taking an unrenewed Lease.")
	fs.DurationVar(&c.RenewDeadline, "leader-election-renew-deadline", c.RenewDeadline, "How long the leader retries renewing before it steps down.")
	fs.DurationVar(&c.RetryPeriod, "leader-election-retry-period", c.RetryPeriod, "Wait between Lease actions.")
	fs.StringVar(&c.Identity, "leader-election-identity", c.Identity, "This replica's identity in the Lease.")
	fs.StringVar(&c.MetricsBindAddress, "metrics-bind-address", c.MetricsBindAddress, "Address of /metrics, /healthz and /readyz; 0 disables.")
	fs.BoolVar(&c.LogDevelopment, "log-development", c.LogDevelopment, "Human-readable console logs instead of JSON.")
	fs.IntVar(&c.LogVerbosity, "v", c.LogVerbosity, "Log verbosity: 0 info, 1 debug.")
}

// Validate reports every setting out of range.
func (c Config) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(c.NATSURL != "", "nats-url: must be set")
	check(c.Workers >= 1, "workers %d: must be at least 1", c.Workers)
	check(c.PublishWindow >= 1, "publish-window %d: must be at least 1", c.PublishWindow)
	check(c.MaxRowBytes >= 0, "max-row-bytes %d: must not be negative", c.MaxRowBytes)
	check(c.PublishAckTimeout > 0, "publish-ack-timeout %v: must be positive", c.PublishAckTimeout)
	check(c.StatusInterval > 0, "status-interval %v: must be positive", c.StatusInterval)
	check(c.BusCheckInterval > 0, "bus-check-interval %v: must be positive", c.BusCheckInterval)
	check(c.DiscoveryRetryMax > 0, "discovery-retry-max %v: must be positive", c.DiscoveryRetryMax)
	if c.LeaderElection {
		check(c.LeaderElectionNamespace != "" && c.LeaderElectionID != "", "leader election needs a Lease namespace and name")
		check(c.Identity != "", "leader-election-identity: must be set")
		check(c.LeaseDuration > c.RenewDeadline && c.RenewDeadline > c.RetryPeriod && c.RetryPeriod > 0,
			"leader election: want lease duration > renew deadline > retry period > 0, got %v, %v, %v",
			c.LeaseDuration, c.RenewDeadline, c.RetryPeriod)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("collector config: %w", err)
	}
	return nil
}
