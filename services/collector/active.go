package collector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"kollect.dev/kollect/pkg/app"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/services/collector/internal/configwatch"
	"kollect.dev/kollect/services/collector/internal/engine"
	"kollect.dev/kollect/services/collector/internal/informers"
	"kollect.dev/kollect/services/collector/internal/metrics"
	"kollect.dev/kollect/services/collector/internal/rowstore"
	"kollect.dev/kollect/services/collector/internal/status"
)

// deps are what every term of the active collector shares.
type deps struct {
	cfg        Config
	log        logr.Logger
	rest       *rest.Config
	source     *rest.Config // the collected objects' API server
	js         jetstream.JetStream
	pub        *rowstore.Publisher
	metrics    *metrics.Metrics
	reconnects *reconnects
	node       *node

	active atomic.Pointer[engine.Engine] // nil between terms
}

// ready reports whether the running term applied its Targets; a replica
// between terms is ready.
func (d *deps) ready() error {
	if e := d.active.Load(); e != nil && !e.Configured() {
		return errors.New("targets not loaded yet")
	}
	return nil
}

// runActive collects the held shards until ctx is cancelled, one term
// after the other: a term ends early when its rows or config bucket was
// lost, re-created or emptied, and the next one writes every row again.
func (d *deps) runActive(ctx context.Context) error {
	for {
		err := d.runTerm(ctx)
		if !errors.Is(err, bus.ErrReset) || ctx.Err() != nil {
			return err
		}
		d.metrics.BusResets.Inc()
		d.log.Info("starting again to rewrite every row", app.KeyReason, err.Error())
	}
}

// runTerm loads the rows already on the bus, follows the config bucket and
// the cluster, and keeps the rows bucket equal to what it sees.
func (d *deps) runTerm(ctx context.Context) error {
	var rows *rowstore.Store // loaded before the guard runs
	inc, err := retry(ctx, d.log, "read the buckets' incarnation", func() (*bus.Incarnation, error) {
		return watchTerm(ctx, d.js, func() bool { return rows.Len() > 0 })
	})
	if err != nil {
		return nil // cancelled
	}
	configKV, err := retry(ctx, d.log, "open the config bucket", func() (jetstream.KeyValue, error) {
		return d.js.KeyValue(ctx, bus.BucketConfig)
	})
	if err != nil {
		return nil // cancelled
	}
	var rowsKV jetstream.KeyValue
	rows, err = retry(ctx, d.log, "load the rows bucket", func() (*rowstore.Store, error) {
		kv, err := d.js.KeyValue(ctx, bus.BucketRows)
		if err != nil {
			return nil, fmt.Errorf("open rows bucket: %w", err)
		}
		rowsKV = kv
		return rowstore.Open(ctx, kv, d.pub, rowstore.Options{Observe: d.observeRowWrite, MaxValueBytes: d.cfg.MaxRowBytes})
	})
	if err != nil {
		return nil
	}
	mgr, err := informers.New(informers.Config{Rest: d.source, Log: d.log, MaxRetryInterval: d.cfg.DiscoveryRetryMax})
	if err != nil {
		return err
	}
	observe := func(t time.Duration) {
		d.metrics.BusPublishDuration.WithLabelValues(metrics.OpStatus).Observe(t.Seconds())
	}
	rep := status.New(d.js, d.cfg.StatusInterval, d.log, observe)
	eng := engine.New(engine.Config{Informers: mgr, Rows: rows, Metrics: d.metrics, Status: rep,
		Extract: d.cfg.Extract, Workers: d.cfg.Workers, Shards: d.cfg.Shards, Log: d.log})
	watcher := &configwatch.Watcher{KV: configKV, Handler: eng, Log: d.log, MaxBackoff: 30 * time.Second,
		Reconnected: d.reconnects.Next}

	if _, err := retry(ctx, d.log, "take the held shards", func() (struct{}, error) {
		return struct{}{}, d.node.attach(ctx, eng)
	}); err != nil {
		d.node.detach()
		return nil // cancelled
	}
	if _, err := retry(ctx, d.log, "list the targets of the rows bucket", func() (struct{}, error) {
		return struct{}{}, d.findLeftRows(ctx, eng, rows)
	}); err != nil {
		d.node.detach()
		return nil // cancelled
	}
	d.active.Store(eng)
	d.metrics.SetInformerObjects(mgr.ObjectCounts)
	d.metrics.SetLoad(func() metrics.Load {
		return metrics.Load{Shards: d.node.heldCount(), Targets: eng.OwnedTargets(), Rows: rows.Len()}
	})
	defer func() {
		d.node.detach()
		d.metrics.SetLoad(nil)
		d.metrics.SetInformerObjects(nil)
		d.metrics.Profiles.Reset()
		d.active.Store(nil)
	}()
	d.log.Info("collecting", "shards", eng.Held())
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return mgr.Run(ctx, eng) })
	g.Go(func() error { return eng.Run(ctx) })
	g.Go(func() error { return rep.Run(ctx, eng) })
	g.Go(func() error { return watcher.Run(ctx) })
	guard := &busGuard{inc: inc, interval: d.cfg.BusCheckInterval, reconnected: d.reconnects.Next}
	g.Go(func() error { return guard.Run(ctx) })
	g.Go(func() error { return markSynced(ctx, rowsKV, d.node, d.cfg.Shards, eng, rows) })
	return g.Wait()
}

// findLeftRows tells the engine every Target the rows bucket holds rows
// of, which may be one deleted while no replica watched: the holder of its
// shard purges them unless it is configured.
func (d *deps) findLeftRows(ctx context.Context, eng *engine.Engine, rows *rowstore.Store) error {
	targets, err := rows.TargetsOnBus(ctx)
	if err != nil {
		return err
	}
	refs := make([]bus.ConfigRef, len(targets))
	for i, t := range targets {
		refs[i] = engine.RefOf(t)
	}
	return eng.Deleted(ctx, refs)
}

// observeRowWrite counts a row write that landed, with its latency, or
// that failed.
func (d *deps) observeRowWrite(w rowstore.Write) {
	op := metrics.OpPut
	if w.Delete {
		op = metrics.OpDelete
	}
	if w.Err != nil {
		d.metrics.RowWriteFailures.WithLabelValues(op).Inc()
		return
	}
	d.metrics.BusPublishDuration.WithLabelValues(op).Observe(w.Latency.Seconds())
	d.metrics.RowWrites.WithLabelValues(op).Inc()
}

// retry calls f with jittered exponential backoff (200 ms doubling to 30 s)
// until it succeeds or ctx ends; it logs each failure.
func retry[T any](ctx context.Context, log logr.Logger, what string, f func() (T, error)) (T, error) {
	backoff := wait.Backoff{Duration: 200 * time.Millisecond, Factor: 2, Jitter: 0.5, Steps: math.MaxInt32, Cap: 30 * time.Second}
	for {
		v, err := f()
		if err == nil {
			return v, nil
		}
		if ctx.Err() != nil {
			return v, ctx.Err()
		}
		d := backoff.Step()
		log.Error(err, "cannot "+what+"; retrying", "retryIn", d.String())
		select {
		case <-ctx.Done():
			return v, ctx.Err()
		case <-time.After(d):
		}
	}
}
