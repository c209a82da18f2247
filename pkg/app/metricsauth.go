package app

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"

	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
)

// secure wraps metrics in Kubernetes authentication and authorization
// (controller-runtime's filter: a TokenReview of the bearer token, then a
// SubjectAccessReview of get on the non-resource URL /metrics, both cached
// briefly) and returns the TLS configuration to serve it with.
func (s *Server) secure(metrics http.Handler) (http.Handler, *tls.Config, error) {
	kube := s.Kube
	if kube == nil {
		var err error
		if kube, err = DefaultKubeOptions().RestConfig("metrics"); err != nil {
			return nil, nil, fmt.Errorf("metrics authentication needs the Kubernetes API server (or --metrics-secure=false): %w", err)
		}
	}
	httpClient, err := rest.HTTPClientFor(kube)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics authentication client: %w", err)
	}
	filter, err := filters.WithAuthenticationAndAuthorization(kube, httpClient)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics authentication: %w", err)
	}
	h, err := filter(s.Log.WithName("metrics-auth"), metrics)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics authentication: %w", err)
	}
	cert, err := s.certificate()
	if err != nil {
		return nil, nil, err
	}
	return h, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// certificate loads CertFile and KeyFile, or generates a self-signed
// certificate (as kube-controller-manager does for its metrics): Prometheus
// scrapes it with the ServiceMonitor's TLS settings.
func (s *Server) certificate() (tls.Certificate, error) {
	if s.CertFile != "" || s.KeyFile != "" {
		c, err := tls.LoadX509KeyPair(s.CertFile, s.KeyFile)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("load the metrics certificate %s: %w", s.CertFile, err)
		}
		return c, nil
	}
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKeyWithFixtures("localhost", []net.IP{{127, 0, 0, 1}}, nil, "")
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("generate a self-signed metrics certificate: %w", err)
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("self-signed metrics certificate: %w", err)
	}
	return c, nil
}
