package backend

import (
	"context"
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// Backend creates sinks of one type (git, s3, postgres, ...) of the family.
// Backends are listed explicitly in the family service's Run, so that its
// imports are the SDKs in the binary.
type Backend interface {
	// Type is the sink's spec.type the backend handles.
	Type() string
	// New returns a sink for cfg, reading its Secrets through creds. An
	// invalid spec or refused credentials are sink.Permanent errors.
	New(ctx context.Context, cfg busv1.SinkConfig, creds Credentials) (sink.Sink, error)
}

// Credentials reads the Secrets a sink references. In production they come
// from the Kubernetes API; the runtime hands each backend Credentials
// restricted by the CredentialPolicy to the sink's namespace. A sink is
// rebuilt from a fresh read when its config changes and on each connection
// test.
type Credentials interface {
	// Secret returns the data of Secret namespace/name; a missing Secret is
	// a sink.Permanent error.
	Secret(ctx context.Context, namespace, name string) (map[string][]byte, error)
}

// MapCredentials is Credentials backed by a map of Secrets, for tests and
// `kollect dev`.
type MapCredentials map[busv1.NamespacedName]map[string][]byte

// Secret returns the map's Secret namespace/name.
func (m MapCredentials) Secret(_ context.Context, namespace, name string) (map[string][]byte, error) {
	data, ok := m[busv1.NamespacedName{Namespace: namespace, Name: name}]
	if !ok {
		return nil, Unresolved(fmt.Errorf("read secret %s/%s: not found", namespace, name))
	}
	return data, nil
}
