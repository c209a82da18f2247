package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
)

// AllNamespaces in CredentialPolicy.AmbientNamespaces allows ambient
// credentials for sinks of every namespace.
const AllNamespaces = "*"

// CredentialPolicy is the operator's rule on which credentials a sink may
// use. The zero value is the safe default: a sink reads Secrets of its own
// namespace only and never gets the exporter's ambient identity.
type CredentialPolicy struct {
	// AllowCrossNamespaceSecretRefs lets spec.secretRef.namespace name
	// another namespace than the sink's.
	AllowCrossNamespaceSecretRefs bool
	// AmbientNamespaces are the namespaces whose sinks without secretRef
	// may use the exporter's own cloud identity (AWS default credential
	// chain, Google Application Default Credentials); AllNamespaces allows
	// every namespace.
	AmbientNamespaces []string
	// AmbientHosts are hosts (host or host:port) beyond a cloud's own
	// storage hosts to which a sink may send the exporter's ambient
	// identity: an Azurite emulator, a private endpoint of its own name.
	// Backends whose ambient credential is a bearer token (Azure workload
	// identity) send it only to their cloud's hosts and these; a
	// tenant-chosen host never receives it.
	AmbientHosts []string
}

// allowsAmbientHost reports whether the operator lists host (host or
// host:port, compared without case).
func (p CredentialPolicy) allowsAmbientHost(host string) bool {
	return slices.ContainsFunc(p.AmbientHosts, func(h string) bool { return strings.EqualFold(h, host) })
}

// allowsAmbient reports whether sinks of namespace ns may use the
// exporter's ambient identity.
func (p CredentialPolicy) allowsAmbient(ns string) bool {
	return slices.Contains(p.AmbientNamespaces, AllNamespaces) || (ns != "" && slices.Contains(p.AmbientNamespaces, ns))
}

// For checks cfg's spec.secretRef against the policy and returns the
// Credentials its backend builds the sink with: they read Secrets of the
// sink's namespace only (and of the secretRef's namespace when the policy
// allows cross-namespace references), and answer AmbientCredentials for
// the sink's namespace. A refused secretRef is a permanent error returned
// before anything is read.
func (p CredentialPolicy) For(cfg busv1.SinkConfig, creds Credentials) (Credentials, error) {
	g := &guarded{Credentials: creds, policy: p, namespace: cfg.Namespace}
	for _, ref := range secretRefNamespaces(cfg.Spec) {
		if ref.Namespace == cfg.Namespace {
			continue
		}
		if !p.AllowCrossNamespaceSecretRefs {
			return nil, Denied(v1alpha1.ReasonSecretRefDenied, fmt.Errorf("%s: sink %s/%s may not reference a Secret in namespace %s: "+
				"cross-namespace Secret references are not allowed (--allow-cross-namespace-secret-refs)", ref.Field, cfg.Namespace, cfg.Name, ref.Namespace))
		}
		g.extra = append(g.extra, ref.Namespace)
	}
	return g, nil
}

// secretRefNamespaces returns the namespaces the Secret references of a
// sink spec name (secretRef, bigquery.secretRef, and the databaseRef of
// postgres and mongodb), by field; references without a namespace are
// left out.
func secretRefNamespaces(spec json.RawMessage) []v1alpha1.SecretNamespace {
	var head struct {
		SecretRef json.RawMessage `json:"secretRef"`
		Postgres  struct {
			DatabaseRef json.RawMessage `json:"databaseRef"`
		} `json:"postgres"`
		MongoDB struct {
			DatabaseRef json.RawMessage `json:"databaseRef"`
		} `json:"mongodb"`
		BigQuery struct {
			SecretRef json.RawMessage `json:"secretRef"`
		} `json:"bigquery"`
	}
	if json.Unmarshal(spec, &head) != nil {
		return nil
	}
	var out []v1alpha1.SecretNamespace
	for _, r := range []struct {
		field string
		raw   json.RawMessage
	}{
		{"spec.secretRef.namespace", head.SecretRef},
		{"spec.postgres.databaseRef.namespace", head.Postgres.DatabaseRef},
		{"spec.mongodb.databaseRef.namespace", head.MongoDB.DatabaseRef},
		{"spec.bigquery.secretRef.namespace", head.BigQuery.SecretRef},
	} {
		if !bytes.HasPrefix(bytes.TrimSpace(r.raw), []byte("{")) {
			continue
		}
		var ref struct {
			Namespace string `json:"namespace"`
		}
		if json.Unmarshal(r.raw, &ref) == nil && ref.Namespace != "" {
			out = append(out, v1alpha1.SecretNamespace{Field: r.field, Namespace: ref.Namespace})
		}
	}
	return out
}

// guarded is the Credentials one sink's backend sees: reads outside the
// allowed namespaces are refused without reading.
type guarded struct {
	Credentials
	policy    CredentialPolicy
	namespace string   // the sink's
	extra     []string // the references' other namespaces, when allowed
}

// Secret reads namespace/name when the sink may read that namespace.
func (g *guarded) Secret(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	if namespace != g.namespace && !slices.Contains(g.extra, namespace) {
		return nil, Denied(v1alpha1.ReasonSecretRefDenied, fmt.Errorf("read a Secret of namespace %s for a sink of namespace %s: "+
			"cross-namespace Secret references are not allowed", namespace, g.namespace))
	}
	return g.Credentials.Secret(ctx, namespace, name)
}

// ambient implements ambientChecker.
func (g *guarded) ambient(namespace string) error {
	if namespace == g.namespace && g.policy.allowsAmbient(namespace) {
		return nil
	}
	return ambientDenied(namespace)
}

// ambientHost implements ambientChecker.
func (g *guarded) ambientHost(host string) bool { return g.policy.allowsAmbientHost(host) }

// ambientChecker is implemented by the Credentials the runtime hands to
// backends; it answers whether a sink may use the ambient identity, and
// toward which hosts the operator allows it beyond the cloud's own.
type ambientChecker interface {
	ambient(namespace string) error
	ambientHost(host string) bool
}

// AmbientHost reports whether the operator lists host (host or host:port)
// in CredentialPolicy.AmbientHosts: a backend may send its ambient bearer
// token there although it is not one of its cloud's hosts. Credentials
// that do not come from a CredentialPolicy list none.
func AmbientHost(creds Credentials, host string) bool {
	a, ok := creds.(ambientChecker)
	return ok && a.ambientHost(host)
}

// AmbientCredentials returns nil when a sink of namespace, built with
// creds, may use the exporter's own cloud identity (the AWS default
// credential chain, Google Application Default Credentials), and a
// permanent CredentialsDenied error otherwise. Backends call it before
// loading any ambient credential. Credentials that do not come from a
// CredentialPolicy (a bare MapCredentials in a test) never allow it.
func AmbientCredentials(creds Credentials, namespace string) error {
	if a, ok := creds.(ambientChecker); ok {
		return a.ambient(namespace)
	}
	return ambientDenied(namespace)
}

func ambientDenied(namespace string) error {
	return Denied(v1alpha1.ReasonCredentialsDenied, fmt.Errorf("ambient credentials are not allowed for namespace %s: "+
		"set spec.secretRef, or ask the operator to allow ambient credentials for the namespace", namespace))
}

// Denied marks err as a permanent refusal whose status reason is reason
// (v1alpha1.ReasonSecretRefDenied, v1alpha1.ReasonCredentialsDenied).
func Denied(reason string, err error) error {
	return sink.Permanent(&v1alpha1.ReasonError{Reason: reason, Err: err})
}
