package collector_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/collector"
)

// lines records a collector's log lines for a test to wait on.
type lines struct {
	mu  sync.Mutex
	all []string
}

func (l *lines) logger(t testing.TB) logr.Logger {
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		l.all = append(l.all, args)
		l.mu.Unlock()
		t.Log(prefix, args)
	}, funcr.Options{Verbosity: 1})
}

func (l *lines) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.all {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// deletes records the keys of every row deleted in the rows bucket from now
// on, with the marker keys left out.
type deletes struct {
	mu   sync.Mutex
	keys []string
}

func (e *env) watchDeletes(t *testing.T) *deletes {
	t.Helper()
	w, err := e.rows.WatchAll(e.ctx, jetstream.UpdatesOnly())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Stop() })
	d := &deletes{}
	go func() {
		for ent := range w.Updates() {
			if ent != nil && ent.Operation() != jetstream.KeyValuePut && !bus.IsMarkerKey(ent.Key()) {
				d.mu.Lock()
				d.keys = append(d.keys, ent.Key())
				d.mu.Unlock()
			}
		}
	}()
	return d
}

func (d *deletes) sorted() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := slices.Clone(d.keys)
	slices.Sort(out)
	return out
}

// lose deletes a KV bucket and provisions the bus again, as after a NATS
// store loss and control's re-provisioning.
func (e *env) lose(bucket string) {
	e.t.Helper()
	if err := e.nats.JS.DeleteKeyValue(e.ctx, bucket); err != nil {
		e.t.Fatal(err)
	}
	if err := bus.Provision(e.ctx, e.nats.JS, bus.DefaultOptions()); err != nil {
		e.t.Fatal(err)
	}
	var err error
	if e.config, err = e.nats.JS.KeyValue(e.ctx, bus.BucketConfig); err != nil {
		e.t.Fatal(err)
	}
	if e.rows, err = e.nats.JS.KeyValue(e.ctx, bus.BucketRows); err != nil {
		e.t.Fatal(err)
	}
}

// waitSynced waits until the rows bucket holds the rows-synced marker of
// every shard (the default count).
func (e *env) waitSynced(what string) {
	e.t.Helper()
	e.waitMarkers(what, collector.DefaultShards)
}

// waitMarkers waits until the rows bucket holds the rows-synced marker of
// every one of shards.
func (e *env) waitMarkers(what string, shards int) {
	e.t.Helper()
	eventually(e.t, 60*time.Second, what, func() error {
		for i := range shards {
			if _, err := e.rows.Get(e.ctx, bus.RowsSyncedShardKey(shards, i)); err != nil {
				return fmt.Errorf("marker of shard %d: %w", i, err)
			}
		}
		return nil
	})
}

func fastBusChecks(l *lines, t testing.TB) func(*collector.Config) {
	return func(c *collector.Config) {
		c.BusCheckInterval = 100 * time.Millisecond
		if l != nil {
			c.Log = l.logger(t)
		}
	}
}

func TestCollectorRewritesEveryRowOfALostRowsBucket(t *testing.T) {
	const ns = "heal-rows"
	namespace(t, ns, nil)
	e := newEnv(t)
	cfg := targetConfig(t, ns, "deploys", 1, imageProfile(ns), in(ns))
	web, api := deployment(ns, "web", "nginx:1", 2, nil), deployment(ns, "api", "api:1", 1, nil)
	create(t, web)
	create(t, api)
	e.put(cfg)
	e.start(fastBusChecks(nil, t))
	want := []busv1.Row{row(t, cfg, web, map[string]any{"image": "nginx:1", "replicas": 2.0}),
		row(t, cfg, api, map[string]any{"image": "api:1", "replicas": 1.0})}
	e.waitRows("rows of a fresh install", want...)
	e.waitSynced("the rows-synced marker of a fresh install")

	e.lose(bus.BucketRows)
	e.waitRows("every row written again into the re-created bucket", want...)
	e.waitSynced("the rows-synced marker after the refill")
}

func TestCollectorRewritesEveryRowOfAnEmptiedRowsBucket(t *testing.T) {
	const ns = "heal-purge"
	namespace(t, ns, nil)
	e := newEnv(t)
	cfg := targetConfig(t, ns, "deploys", 1, imageProfile(ns), in(ns))
	web := deployment(ns, "web", "nginx:1", 1, nil)
	create(t, web)
	e.put(cfg)
	e.start(fastBusChecks(nil, t))
	want := row(t, cfg, web, map[string]any{"image": "nginx:1", "replicas": 1.0})
	e.waitRows("rows before the purge", want)
	e.waitSynced("the rows-synced marker")

	s, err := e.nats.JS.Stream(e.ctx, bus.KVStreamName(bus.BucketRows))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Purge(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.waitRows("every row written again into the purged bucket", want)
	e.waitSynced("the rows-synced marker after the refill")
}

// TestCollectorHoldsDeletionsWhileTheConfigIsIncomplete loses the config
// bucket under a running collector: no row is deleted while the bucket is
// empty or refilled in part; once control's marker says the config is
// complete, only the rows of the Target that is still missing go.
func TestCollectorHoldsDeletionsWhileTheConfigIsIncomplete(t *testing.T) {
	const ns = "heal-config"
	namespace(t, ns, nil)
	e := newEnv(t)
	keep := targetConfig(t, ns, "keep", 1, imageProfile(ns), in(ns))
	gone := targetConfig(t, ns, "gone", 1, imageProfile(ns), in(ns))
	web := deployment(ns, "web", "nginx:1", 1, nil)
	create(t, web)
	e.put(keep)
	e.put(gone)
	var l lines
	e.start(fastBusChecks(&l, t))
	attrs := map[string]any{"image": "nginx:1", "replicas": 1.0}
	kept, dropped := row(t, keep, web, attrs), row(t, gone, web, attrs)
	e.waitRows("rows of both Targets", kept, dropped)
	d := e.watchDeletes(t)

	e.lose(bus.BucketConfig)
	eventually(t, 60*time.Second, "a new term after the config bucket was lost", func() error {
		if l.count("starting again to rewrite every row") == 0 || l.count(`"configComplete"=false`) == 0 {
			return errors.New("no new term with an incomplete config yet")
		}
		return nil
	})
	e.put(keep)
	eventually(t, 60*time.Second, "the re-put Target applied", func() error {
		if l.count("target applied") < 3 {
			return fmt.Errorf("target applied %d times", l.count("target applied"))
		}
		return nil
	})
	if got := d.sorted(); len(got) != 0 {
		t.Fatalf("rows deleted while the config was incomplete: %v", got)
	}
	e.waitRows("both Targets' rows kept while the config is incomplete", kept, dropped)

	e.complete()
	e.waitRows("the rows of the Target still missing removed once the config is complete", kept)
	eventually(t, 10*time.Second, "the delete of the missing Target's row seen", func() error {
		if got, want := d.sorted(), []string{bus.RowKey(dropped.Key())}; !slices.Equal(got, want) {
			return fmt.Errorf("deleted rows %v, want %v", got, want)
		}
		return nil
	})
}
