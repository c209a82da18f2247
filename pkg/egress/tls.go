package egress

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
)

// SecretReader reads the data of one Secret; backend.Credentials satisfies
// it.
type SecretReader interface {
	Secret(ctx context.Context, namespace, name string) (map[string][]byte, error)
}

// TLSConfig builds the client TLS configuration of a sink in namespace from
// its spec.tls. It returns nil when spec is nil (system roots, full
// verification). A CA bundle that holds no certificate, or a missing CA
// Secret key, is a sink.Permanent error.
func TLSConfig(ctx context.Context, spec *v1alpha1.TLSConfig, namespace string, secrets SecretReader) (*tls.Config, error) {
	if spec == nil {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: spec.InsecureSkipVerify} //nolint:gosec // the user's explicit choice, reported as TLSInsecure
	var pem []byte
	switch {
	case spec.CABundle != "":
		pem = []byte(spec.CABundle)
	case spec.CASecretRef != nil:
		data, err := secrets.Secret(ctx, namespace, spec.CASecretRef.Name)
		if err != nil {
			return nil, fmt.Errorf("read tls.caSecretRef %s: %w", spec.CASecretRef.Name, err)
		}
		v, ok := data[spec.CASecretRef.Key]
		if !ok {
			return nil, sink.Permanent(v1alpha1.Reasonf(v1alpha1.ReasonSecretResolveFailed,
				"tls.caSecretRef: Secret %s has no key %q", spec.CASecretRef.Name, spec.CASecretRef.Key))
		}
		pem = v
	}
	if pem != nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, sink.Permanent(fmt.Errorf("tls: the CA bundle holds no PEM certificate"))
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}
