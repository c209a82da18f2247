package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/go-logr/logr"
)

// pprofMux is a private mux holding net/http/pprof's handlers: importing the
// package also registers them on http.DefaultServeMux, which no Kollect
// server serves. /debug/pprof/cmdline is left out: a profile reader needs
// no argv, and an operator may still pass a NATS password in --nats-url
// (the chart does not: BusOptions reads it from the environment).
func pprofMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// servePprof listens on addr and serves profiles until ctx ends; "" or "0"
// opens nothing. It returns the address it listens on.
func servePprof(ctx context.Context, addr string, log logr.Logger) (string, error) {
	if addr == "" || addr == "0" {
		return "", nil
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listen for pprof on %s: %w", addr, err)
	}
	// No write timeout: a CPU profile or trace streams for its ?seconds=.
	srv := &http.Server{Handler: pprofMux(), ReadHeaderTimeout: 10 * time.Second}
	bound := l.Addr().String()
	log.Info("serving pprof profiles", "address", bound)
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error(err, "pprof listener stopped", "address", bound)
		}
	}()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		if srv.Shutdown(shutdown) != nil {
			_ = srv.Close() // a profile still streaming is cut
		}
	}()
	return bound, nil
}
