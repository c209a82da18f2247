package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/rest"
)

// Check reports whether the process is healthy or ready; nil means yes.
type Check func() error

// Server serves /metrics, /healthz and /readyz.
type Server struct {
	// Addr is the listen address; "" or "0" disables the server.
	Addr string
	// Registry is served on /metrics.
	Registry *prometheus.Registry
	// Healthz and Readyz back /healthz and /readyz; nil always passes.
	Healthz, Readyz Check
	// Log receives start and stop lines.
	Log logr.Logger
	// Secure serves HTTPS, and /metrics only to authenticated and
	// authorized callers (MetricsOptions.Secure); CertFile and KeyFile are
	// its certificate, self-signed when empty.
	Secure            bool
	CertFile, KeyFile string
	// Kube is the API server that reviews callers' tokens and access when
	// Secure; nil loads $KUBECONFIG or the in-cluster service account.
	Kube *rest.Config
}

// Run serves until ctx is cancelled. It fails only when it cannot listen.
func (s *Server) Run(ctx context.Context) error {
	if s.Addr == "" || s.Addr == "0" {
		return nil
	}
	metrics := promhttp.HandlerFor(s.Registry, promhttp.HandlerOpts{Registry: s.Registry})
	var tlsConfig *tls.Config
	if s.Secure {
		var err error
		if metrics, tlsConfig, err = s.secure(metrics); err != nil {
			return err
		}
	}
	l, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("listen for metrics on %s: %w", s.Addr, err)
	}
	if tlsConfig != nil {
		l = tls.NewListener(l, tlsConfig)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", metrics)
	mux.Handle("/healthz", check(s.Healthz))
	mux.Handle("/readyz", check(s.Readyz))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.Log.Info("serving metrics and probes", "address", l.Addr().String(), "secure", s.Secure)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve metrics on %s: %w", s.Addr, err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		// A scrape or probe still open after the grace (a loaded node) is
		// cut: stopping is what was asked, and it fails only when it
		// cannot listen.
		s.Log.Info("metrics server: connections still open after 5s are closed", KeyAddress, s.Addr, KeyReason, err.Error())
		_ = srv.Close()
	}
	return nil
}

func check(c Check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if c != nil {
			if err := c(); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		_, _ = w.Write([]byte("ok\n"))
	})
}
