package app

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Leader election flag names, the same in every service (Flux's vocabulary).
const (
	FlagLeaderElect            = "leader-elect"
	FlagLeaderElectionNS       = "leader-election-namespace"
	FlagLeaderElectionID       = "leader-election-id"
	FlagLeaseDuration          = "leader-election-lease-duration"
	FlagRenewDeadline          = "leader-election-renew-deadline"
	FlagRetryPeriod            = "leader-election-retry-period"
	FlagLeaderElectionIdentity = "leader-election-identity"
)

// DefaultLeaderNamespace is the Lease's namespace outside a pod when
// neither --leader-election-namespace nor $POD_NAMESPACE says one.
const DefaultLeaderNamespace = "kollect-system"

// inClusterNamespace is where a pod's service account names its namespace.
const inClusterNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// LeaderOptions elect one active replica of a service on a Kubernetes
// Lease (control, the collector). The aggregator's lease lives on the bus;
// it takes LeaseDuration and Identity from here (BindLeaseFlags).
type LeaderOptions struct {
	// Enabled makes the replica wait for the Lease before it works.
	Enabled bool
	// Namespace holds the Lease; empty is $POD_NAMESPACE, the pod's
	// service-account namespace, then DefaultLeaderNamespace.
	Namespace string
	// ID is the Lease's name.
	ID string
	// LeaseDuration is how long a standby waits before it takes a Lease
	// that was not renewed.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader retries renewing before it
	// steps down; RetryPeriod is the wait between Lease actions.
	RenewDeadline, RetryPeriod time.Duration
	// Identity is this replica's name in the Lease.
	Identity string
}

// DefaultLeaderOptions returns leader election on, on Lease id, for 15s
// renewed within 10s every 2s, as <hostname>_<random>.
func DefaultLeaderOptions(id string) LeaderOptions {
	return LeaderOptions{Enabled: true, ID: id, LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second,
		RetryPeriod: 2 * time.Second, Identity: DefaultIdentity()}
}

// DefaultIdentity names a replica: its host name (the pod's name) and a
// random suffix, so that a restarted process never takes over its previous
// incarnation's lease as if it held it.
func DefaultIdentity() string {
	host, _ := os.Hostname()
	return host + "_" + rand.String(6)
}

// BindFlags registers every leader election flag on fs, defaulting to o's
// values.
func (o *LeaderOptions) BindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Enabled, FlagLeaderElect, o.Enabled, "Wait for the Lease before working, so that one replica is active.")
	fs.StringVar(&o.Namespace, FlagLeaderElectionNS, o.Namespace,
		"Namespace of the Lease; empty is $POD_NAMESPACE, the pod's namespace, then "+DefaultLeaderNamespace+".")
	fs.StringVar(&o.ID, FlagLeaderElectionID, o.ID, "Name of the Lease.")
	o.BindLeaseFlags(fs)
	fs.DurationVar(&o.RenewDeadline, FlagRenewDeadline, o.RenewDeadline, "How long the leader retries renewing before it steps down.")
	fs.DurationVar(&o.RetryPeriod, FlagRetryPeriod, o.RetryPeriod, "Wait between Lease actions.")
}

// BindLeaseFlags registers only --leader-election-lease-duration and
// --leader-election-identity: what a lease other than a Kubernetes Lease
// (the aggregator's, on the bus) honours.
func (o *LeaderOptions) BindLeaseFlags(fs *flag.FlagSet) {
	fs.DurationVar(&o.LeaseDuration, FlagLeaseDuration, o.LeaseDuration,
		"How long the leader's lease lasts without renewal: a standby takes over at most this long after the leader vanished.")
	fs.StringVar(&o.Identity, FlagLeaderElectionIdentity, o.Identity, "This replica's name in the lease.")
}

// Validate reports every setting out of range when election is on.
func (o LeaderOptions) Validate() error {
	if !o.Enabled {
		return nil
	}
	var errs []error
	if o.ID == "" {
		errs = append(errs, errors.New("--"+FlagLeaderElectionID+": must be set"))
	}
	if o.Identity == "" {
		errs = append(errs, errors.New("--"+FlagLeaderElectionIdentity+": must be set"))
	}
	if o.LeaseDuration <= o.RenewDeadline || o.RenewDeadline <= o.RetryPeriod || o.RetryPeriod <= 0 {
		errs = append(errs, fmt.Errorf("leader election: want --%s > --%s > --%s > 0, got %v, %v, %v",
			FlagLeaseDuration, FlagRenewDeadline, FlagRetryPeriod, o.LeaseDuration, o.RenewDeadline, o.RetryPeriod))
	}
	return errors.Join(errs...)
}

// LeaseNamespace returns the namespace of the Lease: Namespace, else
// $POD_NAMESPACE, else the pod's service-account namespace, else
// DefaultLeaderNamespace.
func (o LeaderOptions) LeaseNamespace() string {
	if o.Namespace != "" {
		return o.Namespace
	}
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if b, err := os.ReadFile(inClusterNamespace); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b))
	}
	return DefaultLeaderNamespace
}

// Lock returns the Lease lock of o as Identity, on the API server of rc.
func (o LeaderOptions) Lock(rc *rest.Config) (resourcelock.Interface, error) {
	rc = rest.AddUserAgent(rest.CopyConfig(rc), "leader-election")
	// One hung request must not cost the Lease (controller-runtime does the same).
	rc.Timeout = max(o.RenewDeadline/2, time.Second)
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("create client for leader election: %w", err)
	}
	l, err := resourcelock.New(resourcelock.LeasesResourceLock, o.LeaseNamespace(), o.ID, cs.CoreV1(), cs.CoordinationV1(),
		resourcelock.ResourceLockConfig{Identity: o.Identity})
	if err != nil {
		return nil, fmt.Errorf("create leader election lock %s/%s: %w", o.LeaseNamespace(), o.ID, err)
	}
	return l, nil
}
