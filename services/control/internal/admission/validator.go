package admission

import (
	"time"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/control/internal/policy"
)

// Path is where the validating webhook is served.
const Path = "/validate-kollect-dev"

// Scopes finds the honoured Scope of a namespace and the honoured
// ClusterScope; nil when there is none.
type Scopes interface {
	Honoured(ctx context.Context, ns string) (*v1alpha1.KollectScope, error)
	HonouredCluster(ctx context.Context) (*v1alpha1.KollectClusterScope, error)
}

// Validator is the admission handler.
type Validator struct {
	// Reader reads Profiles.
	Reader Reader
	// Scopes finds the honoured Scopes.
	Scopes Scopes
	// Mapper maps a Profile's kind to its resource for access reviews.
	Mapper meta.RESTMapper
	// Kube creates SubjectAccessReviews.
	Kube kubernetes.Interface
	// Egress is the operator's sink address policy, applied to the
	// endpoints' text.
	Egress egress.Policy
	// Extract are the extraction options profiles compile with.
	Extract extract.Options
	// AllowCrossNamespaceSecretRefs admits a sink whose spec.secretRef
	// names another namespace.
	AllowCrossNamespaceSecretRefs bool
	// MinExportInterval is the operator's floor (--min-export-interval):
	// a non-zero exportMinInterval below it is refused. Zero disables it.
	MinExportInterval time.Duration
	// DefaultServiceAccount is the operator's default ServiceAccount: a
	// Target naming it chooses no identity.
	DefaultServiceAccount string
	// Quotas are the operator's per-namespace quotas and history cap: an
	// object over one (or over its Scope's tightening) is refused, naming
	// the limit and the usage.
	Quotas policy.Quotas
	// Limiter throttles reviews per caller; nil admits every request to
	// review.
	Limiter *Limiter
}

var errTooManyReviews = errors.New("too many admission reviews from this caller; retry later")

// Handle admits or refuses one create or update. An update that leaves
// spec as it was (finalizers, labels, annotations) is admitted without
// checks: control's own finalizer updates must never be refused, and the
// reconciler re-checks everything that matters from stored facts anyway.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation == admissionv1.Update && sameSpec(req.OldObject.Raw, req.Object.Raw) {
		return admission.Allowed("spec unchanged")
	}
	if v.Limiter != nil && !v.Limiter.Allow(callerOf(ctx).key(req)) {
		return admission.Errored(http.StatusTooManyRequests, errTooManyReviews)
	}
	var msg string
	var err error
	switch req.Kind.Kind {
	case "KollectProfile":
		msg, err = decodeAnd(req, v.profile)
	case "KollectTarget":
		msg, err = decodeAnd(req, func(t *v1alpha1.KollectTarget) (string, error) { return v.target(ctx, req, t) })
	case "KollectClusterTarget":
		msg, err = decodeAnd(req, func(t *v1alpha1.KollectClusterTarget) (string, error) { return v.clusterTarget(ctx, t) })
	case "KollectInventory":
		msg, err = decodeAnd(req, func(i *v1alpha1.KollectInventory) (string, error) { return v.inventory(ctx, req, i) })
	case "KollectClusterInventory":
		msg, err = decodeAnd(req, func(i *v1alpha1.KollectClusterInventory) (string, error) { return v.clusterInventory(ctx, i) })
	case "KollectReplay":
		if req.Operation != admissionv1.Create {
			return admission.Allowed("")
		}
		msg, err = decodeAnd(req, func(r *v1alpha1.KollectReplay) (string, error) { return v.replay(ctx, req, r) })
	case "KollectSnapshotSink", "KollectDatabaseSink", "KollectEventSink":
		msg, err = v.sink(ctx, req)
	default:
		return admission.Allowed("")
	}
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if msg != "" {
		return admission.Denied(msg)
	}
	return admission.Allowed("")
}

// sameSpec reports whether two encodings of an object have equal specs.
func sameSpec(oldRaw, newRaw []byte) bool {
	var o, n struct {
		Spec json.RawMessage `json:"spec"`
	}
	if len(oldRaw) == 0 || json.Unmarshal(oldRaw, &o) != nil || json.Unmarshal(newRaw, &n) != nil {
		return false
	}
	var os, ns any
	if json.Unmarshal(orNull(o.Spec), &os) != nil || json.Unmarshal(orNull(n.Spec), &ns) != nil {
		return false
	}
	return reflect.DeepEqual(os, ns)
}

func orNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

func decodeAnd[T any](req admission.Request, f func(*T) (string, error)) (string, error) {
	obj := new(T)
	if err := json.Unmarshal(req.Object.Raw, obj); err != nil {
		return "", fmt.Errorf("decode %s %s: %w", req.Kind.Kind, req.Name, err)
	}
	return f(obj)
}

func (v *Validator) profile(p *v1alpha1.KollectProfile) (string, error) {
	if _, errs := extract.CompileProfile(p, v.Extract); len(errs) > 0 {
		return errs.ToAggregate().Error(), nil
	}
	return "", nil
}
