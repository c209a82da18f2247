package reconcile

import (
	"context"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/services/control/internal/policy"
	"kollect.dev/kollect/services/control/internal/reports"
	"kollect.dev/kollect/services/control/internal/requester"
)

// Finalizer holds targets and inventories until their config entry is
// deleted, so the collector and aggregator always see the deletion (and the
// aggregator can publish an inventory's final snapshot) before the object
// disappears.
const Finalizer = "kollect.dev/control"

// Policy holds the operator-level settings the reconcilers enforce.
type Policy struct {
	// Egress is the operator's sink address policy, applied to the
	// endpoints' text (literal addresses, in-cluster names, file://);
	// exporters apply it again to every address they dial.
	Egress egress.Policy
	// ProbeRetry is how long to wait before probing a sink again after a
	// failed, non-permanent connection test.
	ProbeRetry time.Duration
	// DefaultServiceAccount is the ServiceAccount a Target acts as when it
	// names none; empty makes such Targets collect nothing.
	DefaultServiceAccount string
	// AccessRecheck is how often a Target's access is reviewed again when
	// nothing it depends on changed.
	AccessRecheck time.Duration
	// AllowCrossNamespaceSecretRefs accepts a sink whose spec.secretRef
	// names another namespace than the sink's.
	AllowCrossNamespaceSecretRefs bool
	// MinExportInterval is the operator's floor for every binding's
	// non-zero interval: a shorter one is raised to it (ScopeIntervalRaised,
	// as for a Scope's floor). Zero disables it.
	MinExportInterval time.Duration
	// Quotas are the operator's per-namespace quotas and history cap
	// (control's --max-*-per-namespace and --history-max-* flags); a
	// namespace's KollectScope may tighten them.
	Quotas policy.Quotas
}

// Reporter answers the latest status reports about one object.
type Reporter interface {
	Reports(reports.ObjectKey) []busv1.StatusReport
}

// Prober sends one connection test and returns the exporter's reply.
type Prober interface {
	Probe(ctx context.Context, sink busv1.SinkRef, gen int64) (busv1.ConnectionTestReply, error)
}

// Deps are what every reconciler uses.
type Deps struct {
	// Client reads through the manager's cache and writes to the API server.
	Client client.Client
	// KV is the compiled-config bucket.
	KV jetstream.KeyValue
	// Reports holds the latest status reports.
	Reports Reporter
	// Prober sends connection tests.
	Prober Prober
	// Recorder records events on transitions.
	Recorder events.EventRecorder
	// Policy is the operator-level policy.
	Policy Policy
	// Access reviews what a Target's ServiceAccount may list.
	Access AccessReviewer
	// AccessCache, when set, is the cache behind Access: a binding change
	// drops the answers about its subjects before their Targets are
	// reviewed again.
	AccessCache SubjectCache
	// Requesters verifies the requester the webhook recorded on Targets
	// and sinks; nil skips the requester check (--verify-requesters=false).
	Requesters *requester.Sealer
	// Now returns the current time; time.Now unless a test sets it.
	Now func() time.Time

	// announced is the status and reason last announced by an event, per
	// object UID and condition type.
	announced sync.Map
}
