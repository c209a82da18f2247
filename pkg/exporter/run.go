package exporter

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/history"
)

// bindingKey names one (inventory, sink) binding.
type bindingKey struct {
	inv busv1.NamespacedName
	ref busv1.SinkRef
}

// runtime is one replica of a family's exporter.
type runtime struct {
	js      jetstream.JetStream
	cfg     Config
	id      string // this replica, in binding claims
	log     logr.Logger
	metrics *metrics
	configs *configs
	state   jetstream.KeyValue
	loader  *history.Loader // reads every event's envelope, manifest, chunks and delta
	tracker *tracker
	ctx     context.Context // the workers' context
	wg      sync.WaitGroup

	mu       sync.Mutex
	workers  map[bindingKey]*worker
	breakers map[busv1.SinkRef]*breaker
}

// Run exports the snapshot events of c.Family to the sinks built by
// backends until ctx ends; see the package documentation for the design.
// The bus must be provisioned (bus.Provision). Run returns nil after a clean
// shutdown: in-flight writes are cancelled and their messages released.
func Run(ctx context.Context, js jetstream.JetStream, c Config, backends ...backend.Backend) error {
	if err := c.validate(); err != nil {
		return err
	}
	byType := map[string]backend.Backend{}
	for _, b := range backends {
		byType[b.Type()] = b
	}
	rt := &runtime{js: js, cfg: c, id: replicaID(), log: c.Log,
		metrics: newMetrics(c.Metrics, string(c.Family)),
		configs: newConfigs(c.Family, byType, c.Credentials, c.CredentialPolicy), tracker: newTracker(c.MaxHeld, c.MaxHeldPerNamespace),
		workers: map[bindingKey]*worker{}, breakers: map[busv1.SinkRef]*breaker{}, loader: c.Loader}
	rt.metrics.registerTracker(c.Metrics, rt.tracker)
	if rt.metrics != nil {
		rt.configs.forget = rt.metrics.forgetSink
	}
	if rt.loader == nil {
		rt.loader = history.NewLoader(js, c.ChunkCacheBytes)
	}
	registerLoader(c.Metrics, string(c.Family), rt.loader)
	for {
		err := rt.run(ctx)
		if ctx.Err() != nil {
			return nil //nolint:nilerr // finished, or cancelled while starting or stopping: a clean shutdown
		}
		if !errors.Is(err, errBusLost) {
			return err
		}
		// The bus lost the config bucket (storage wiped, a bucket deleted):
		// open it again once control has provisioned it, instead of
		// exiting as if asked to stop. Unacknowledged events come back.
		rt.log.Info("the bus lost its config; opening it again", app.KeyReason, err.Error())
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
}

// errBusLost is returned by run when the config watch ends without being
// asked to: its bucket's stream is gone.
var errBusLost = errors.New("bus state lost")

// open opens the config and export-state buckets and the family's
// consumer, waiting while the bus is not provisioned yet (control
// provisions it at start), so that starting before control is a wait, not
// a crash loop.
func (rt *runtime) open(ctx context.Context) (cfgKV jetstream.KeyValue, cons jetstream.Consumer, err error) {
	consumer := bus.ExporterConsumer(rt.cfg.Family)
	for {
		err = app.WaitProvisioned(logr.NewContext(ctx, rt.log), rt.js, app.Bucket(bus.BucketConfig),
			app.Bucket(bus.BucketExportState), app.Consumer(bus.StreamSnapshots, consumer))
		if err == nil {
			cfgKV, err = rt.js.KeyValue(ctx, bus.BucketConfig)
		}
		if err == nil {
			rt.state, err = rt.js.KeyValue(ctx, bus.BucketExportState)
		}
		if err == nil {
			cons, err = rt.js.Consumer(ctx, bus.StreamSnapshots, consumer)
		}
		switch {
		case ctx.Err() != nil:
			return nil, nil, ctx.Err()
		case app.Missing(err) || app.Unavailable(err): // deleted again, or NATS away, between the wait and the open
			continue
		case err != nil:
			return nil, nil, fmt.Errorf("open the bus for %s: %w", rt.cfg.Family.Exporter(), err)
		}
		return cfgKV, cons, nil
	}
}

func (rt *runtime) run(ctx context.Context) error {
	cfgKV, cons, err := rt.open(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rt.ctx = ctx
	ready := make(chan struct{})
	watchErr := make(chan error, 2) // the config watch's end, and a lost consumer
	go func() { watchErr <- rt.configs.watch(ctx, cfgKV, ready) }()
	select {
	case <-ready:
	case err := <-watchErr:
		return err
	case <-ctx.Done():
		return nil
	}
	sub, err := rt.serveConnTests(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = sub.Unsubscribe() }()
	signal := func(err error) {
		select {
		case watchErr <- fmt.Errorf("%w: consumer %s: %w", errBusLost, bus.ExporterConsumer(rt.cfg.Family), err):
		default:
		}
	}
	lost := func(_ jetstream.ConsumeContext, err error) {
		switch {
		case errors.Is(err, jetstream.ErrConsumerDeleted) || errors.Is(err, jetstream.ErrConsumerNotFound):
			signal(err)
		case errors.Is(err, jetstream.ErrNoHeartbeat):
			// A network blip, or the consumer went with its stream: ask.
			go func() {
				ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				if _, ierr := cons.Info(ictx); errors.Is(ierr, jetstream.ErrConsumerNotFound) || errors.Is(ierr, jetstream.ErrStreamNotFound) {
					signal(ierr)
				}
			}()
		}
	}
	cc, err := cons.Consume(func(m jetstream.Msg) { rt.dispatch(m) }, jetstream.ConsumeErrHandler(lost))
	if err != nil {
		return fmt.Errorf("consume %s: %w", bus.ExporterConsumer(rt.cfg.Family), err)
	}
	if mp := cons.CachedInfo().Config.MaxAckPending; mp > 0 && rt.cfg.MaxHeld >= mp {
		rt.log.Info("the held budget is not below the consumer's MaxAckPending: one tenant whose sinks stall can stop the family for every tenant",
			"maxHeld", rt.cfg.MaxHeld, "maxAckPending", mp)
	}
	go rt.tracker.keepAlive(ctx, max(cons.CachedInfo().Config.AckWait/3, time.Second))
	go rt.watchSecrets(ctx, rt.cfg.SecretCheckInterval)
	go rt.sweepWorkers(ctx, idleWorkerTTL)
	go rt.metrics.watchLag(ctx, cons, 15*time.Second)
	select {
	case <-ctx.Done():
	case err = <-watchErr:
	}
	// Stop consuming and wait for the callback to return, so that no
	// worker starts after the wait below.
	cc.Stop()
	select {
	case <-cc.Closed():
	case <-time.After(5 * time.Second):
	}
	cancel()
	rt.wg.Wait()
	rt.mu.Lock()
	rt.workers = map[bindingKey]*worker{} // their goroutines ended with ctx
	rt.mu.Unlock()
	rt.tracker.release()
	// A nak is a plain publish: flush it before the process may exit, or
	// the message waits for its ack wait instead of going to another
	// replica at once.
	_ = rt.js.Conn().FlushTimeout(2 * time.Second)
	rt.configs.closeAll(context.WithoutCancel(ctx))
	return err
}

// configBehindDelay is how long an event addressed to a binding the
// exporter's config does not know yet waits before it is delivered again.
const configBehindDelay = time.Second

// dispatch hands one message to the workers of the bindings it addresses,
// without blocking; messages with no binding of this family are acknowledged
// at once, undecodable ones terminated.
func (rt *runtime) dispatch(m jetstream.Msg) {
	inv, err := bus.ParseSnapshotSubject(m.Subject())
	var ev busv1.SnapshotEvent
	if err == nil {
		err = busv1.Unmarshal(m.Data(), &ev) // exact large integers in rows
	}
	if err == nil && ev.Inventory != inv {
		err = fmt.Errorf("event names inventory %s, subject %s", ev.Inventory, inv)
	}
	if err != nil {
		rt.terminate(m, inv, fmt.Errorf("decode snapshot event on %s: %w", m.Subject(), err))
		return
	}
	var jobs []*job
	for _, b := range ev.Bindings {
		if b.Family != rt.cfg.Family {
			continue
		}
		bound, behind := rt.configs.bound(inv, b.SinkRef, ev.Generation)
		if behind {
			// A binding newer than the config this exporter has seen: not
			// acknowledged away, delivered again once the config caught up
			// (M11).
			_ = m.NakWithDelay(configBehindDelay)
			return
		}
		if bound {
			jobs = append(jobs, &job{binding: b})
		}
	}
	if len(jobs) == 0 {
		_ = m.Ack()
		return
	}
	d := rt.tracker.add(m, &ev, len(jobs))
	for _, j := range jobs {
		j.d = d
		rt.worker(inv, j.binding.SinkRef).offer(j)
	}
}

// worker returns the binding's worker, starting it on first use.
func (rt *runtime) worker(inv busv1.NamespacedName, ref busv1.SinkRef) *worker {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	k := bindingKey{inv, ref}
	w, ok := rt.workers[k]
	if !ok {
		ctx, cancel := context.WithCancel(rt.ctx)
		w = &worker{rt: rt, inv: inv, ref: ref, wake: make(chan struct{}, 1), stop: cancel}
		rt.workers[k] = w
		rt.wg.Add(1)
		go func() {
			defer rt.wg.Done()
			w.run(ctx)
		}()
	}
	w.active = time.Now()
	return w
}

// breaker returns the sink's circuit breaker.
func (rt *runtime) breaker(ref busv1.SinkRef) *breaker {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	b, ok := rt.breakers[ref]
	if !ok {
		b = &breaker{threshold: rt.cfg.BreakerFailures, cooldown: rt.cfg.BreakerCooldown}
		rt.breakers[ref] = b
	}
	return b
}
