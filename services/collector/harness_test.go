package collector_test

import (
	"context"
	"encoding/json"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/nats-io/nats.go/jetstream"
	"k8s.io/client-go/rest"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/collector"
)

// env is one test's bus, with the buckets the collector uses.
type env struct {
	t      testing.TB
	ctx    context.Context
	nats   *testenv.NATS
	config jetstream.KeyValue
	rows   jetstream.KeyValue
}

func newEnv(t testing.TB) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	n := testenv.StartNATS(t)
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ctx: ctx, nats: n}
	var err error
	if e.config, err = n.JS.KeyValue(ctx, bus.BucketConfig); err != nil {
		t.Fatal(err)
	}
	if e.rows, err = n.JS.KeyValue(ctx, bus.BucketRows); err != nil {
		t.Fatal(err)
	}
	e.complete()
	return e
}

// complete writes the config-complete marker, as control does after a
// full pass: deletions of Targets apply only while it is there.
func (e *env) complete() {
	e.t.Helper()
	if _, err := e.config.Put(e.ctx, bus.ConfigCompleteKey, []byte(time.Now().UTC().Format(time.RFC3339))); err != nil {
		e.t.Fatal(err)
	}
}

// running is a collector started by a test.
type running struct {
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

// start runs a collector against the shared API server, without leader
// election, until the test ends or stop is called.
func (e *env) start(opts ...func(*collector.Config)) *running {
	e.t.Helper()
	cfg := collector.DefaultConfig()
	cfg.Bus.URL = e.nats.URL
	cfg.Kube.Rest = kube.Config
	cfg.Leader.Enabled = false
	cfg.Metrics.BindAddress = "0"
	cfg.StatusInterval = 50 * time.Millisecond
	cfg.DiscoveryRetryMax = time.Second
	cfg.Log = testr.NewWithInterface(e.t, testr.Options{Verbosity: 1})
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	r := &running{cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- collector.Run(ctx, cfg) }()
	e.t.Cleanup(func() { r.stop(e.t) })
	return r
}

// stop cancels the collector and waits for Run to return without error.
func (r *running) stop(t testing.TB) {
	t.Helper()
	r.once.Do(func() {
		r.cancel()
		select {
		case err := <-r.done:
			if err != nil {
				t.Errorf("collector Run returned %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("collector did not stop within 30s of its context being cancelled")
		}
	})
}

// as runs the collector with another API server identity.
func as(c *rest.Config) func(*collector.Config) {
	return func(cfg *collector.Config) { cfg.Kube.Rest = c }
}

// put writes a Target's compiled config, as control would.
func (e *env) put(cfg busv1.TargetConfig) {
	e.t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.config.Put(e.ctx, bus.ConfigKey(bus.ConfigRef{Kind: cfg.Kind, Namespace: cfg.Namespace, Name: cfg.Name}), b); err != nil {
		e.t.Fatal(err)
	}
}

// remove deletes a Target's compiled config, as control would.
func (e *env) remove(cfg busv1.TargetConfig) {
	e.t.Helper()
	if err := e.config.Delete(e.ctx, bus.ConfigKey(bus.ConfigRef{Kind: cfg.Kind, Namespace: cfg.Namespace, Name: cfg.Name})); err != nil {
		e.t.Fatal(err)
	}
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
