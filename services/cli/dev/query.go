package dev

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"

	"kollect.dev/kollect/services/cli/internal/devbus"
	"kollect.dev/kollect/services/query"
)

// QueryOptions configure the history API kollect dev serves. A cluster's
// API server cannot reach a process on a laptop, so it is not registered
// as an APIService: it listens on 127.0.0.1 and the kollect CLI finds it
// through the dev query file when the cluster serves no query API. It
// authenticates and authorizes every caller through the cluster's API
// server (TokenReview, SubjectAccessReview), as the chart's query service
// does.
type QueryOptions struct {
	// Serve turns the history API on.
	Serve bool
	// Port is its HTTPS port on 127.0.0.1; zero picks a free one (the CLI
	// finds it in File).
	Port int
	// Kubeconfig is the path of the kubeconfig the service delegates
	// authentication and authorization with: kollect dev's own context.
	Kubeconfig string
	// File is where the service's address and per-run certificate are
	// written (mode 0600) for the CLI; empty is devbus.QueryPath().
	File string
}

// runningQuery is a started dev query service.
type runningQuery struct {
	file string
	q    devbus.Query
	dir  string
}

// start serves the history API in g until ctx ends and writes the dev
// query file naming it.
func (o QueryOptions) start(ctx context.Context, g *errgroup.Group, js jetstream.JetStream, kube *rest.Config, log logr.Logger) (*runningQuery, error) {
	dir, err := os.MkdirTemp("", "kollect-dev-query-")
	if err != nil {
		return nil, err
	}
	r := &runningQuery{dir: dir}
	// A certificate for this run only, with its own CA: the CLI trusts
	// exactly this one (devbus.Query.CA).
	crt, key, err := certutil.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		r.remove()
		return nil, fmt.Errorf("dev query service certificate: %w", err)
	}
	lis, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port)))
	if err != nil {
		r.remove()
		return nil, fmt.Errorf("dev query service: %w", err)
	}
	c := query.DefaultConfig()
	c.Log = log
	s := &c.Server
	s.Listener, s.Kubeconfig = lis, o.Kubeconfig
	s.CertFile, s.KeyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	for path, data := range map[string][]byte{s.CertFile: crt, s.KeyFile: key} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			_ = lis.Close()
			r.remove()
			return nil, err
		}
	}
	if r.file = o.File; r.file == "" {
		if r.file, err = devbus.QueryPath(); err != nil {
			_ = lis.Close()
			r.remove()
			return nil, err
		}
	}
	r.q = devbus.Query{URL: "https://" + lis.Addr().String(), CA: string(crt), APIServer: kube.Host}
	if err := devbus.WriteQuery(r.file, r.q); err != nil {
		_ = lis.Close()
		r.remove()
		return nil, err
	}
	g.Go(func() error {
		if err := query.RunWith(ctx, js, c); err != nil && ctx.Err() == nil {
			return fmt.Errorf("query: %w", err)
		}
		return nil
	})
	log.Info("serving the history API on loopback for the kollect CLI", "url", r.q.URL, "file", r.file)
	return r, nil
}

// remove deletes the run's certificate and its dev query file.
func (r *runningQuery) remove() {
	if r.file != "" {
		devbus.RemoveQuery(r.file, r.q)
	}
	_ = os.RemoveAll(r.dir)
}
