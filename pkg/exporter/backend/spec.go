package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
)

// Spec is a sink spec of the API (*v1alpha1.KollectSnapshotSinkSpec,
// *KollectDatabaseSinkSpec, *KollectEventSinkSpec).
type Spec interface {
	// SinkType is spec.type.
	SinkType() string
	// Normalize rewrites the established spellings.
	Normalize()
	// Validate runs the checks admission and reconcile run too.
	Validate() field.ErrorList
}

// DecodeSpec decodes cfg.Spec into a sink spec S for a backend of type
// want: strictly (a field S does not know is refused), normalised, of
// type want, and valid by S's Validate, the checks admission and the
// reconciler run. Every error is sink.Permanent and names the field; the
// caller names the sink.
func DecodeSpec[S any, P interface {
	*S
	Spec
}](cfg busv1.SinkConfig, want string) (S, error) {
	var spec S
	dec := json.NewDecoder(bytes.NewReader(cfg.Spec))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return spec, sink.Permanent(fmt.Errorf("decode %s sink spec: %w", want, err))
	}
	p := P(&spec)
	p.Normalize()
	if got := p.SinkType(); got != want {
		return spec, sink.Permanent(fmt.Errorf("spec.type is %q, not %s", got, want))
	}
	if errs := p.Validate(); len(errs) > 0 {
		return spec, sink.Permanent(errs.ToAggregate())
	}
	return spec, nil
}

// SecretData reads the Secret ref names for a sink of namespace ns (the
// Secret's namespace defaults to ns) and checks that each of keys is
// present and not empty. A nil ref returns nil data. A missing key is a
// sink.Permanent error from MissingKey; values never appear in errors.
func SecretData(ctx context.Context, creds Credentials, ns string, ref *v1alpha1.SecretReference, keys ...string) (map[string][]byte, error) {
	if ref == nil {
		return nil, nil
	}
	if ref.Namespace != "" {
		ns = ref.Namespace
	}
	data, err := creds.Secret(ctx, ns, ref.Name)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if len(data[k]) == 0 {
			return nil, MissingKey(ns, ref.Name, k)
		}
	}
	return data, nil
}

// MissingKey is the one error for a Secret that lacks what a sink needs:
// `Secret ns/name has no key "a"`, or `... no key "a" or "b"` when any
// one of keys would do. It is permanent and carries SecretResolveFailed
// (Unresolved), like a Secret that does not exist.
func MissingKey(ns, name string, keys ...string) error {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = fmt.Sprintf("%q", k)
	}
	return Unresolved(fmt.Errorf("Secret %s/%s has no key %s", ns, name, strings.Join(quoted, " or ")))
}

// Unresolved marks err, a Secret that is missing, not readable or lacks a
// key the sink needs, as a permanent error with reason SecretResolveFailed:
// the connection test and the export report it so, and control makes the
// sink Ready=False until the Secret or the sink changes.
func Unresolved(err error) error {
	return sink.Permanent(&v1alpha1.ReasonError{Reason: v1alpha1.ReasonSecretResolveFailed, Err: err})
}
