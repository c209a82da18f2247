package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/testenv"
)

// fakeClock moves only when the test advances it.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Until(t time.Time) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if !t.After(c.now) {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, waiter{at: t, ch: ch})
	return ch
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	c.waiters = kept
}

// bed is an embedded NATS server with the bus provisioned.
type bed struct {
	t    testing.TB
	n    *testenv.NATS
	js   jetstream.JetStream
	rows jetstream.KeyValue
	cfg  jetstream.KeyValue
}

func newBed(t testing.TB, mutate func(*bus.Options)) *bed {
	t.Helper()
	n := testenv.StartNATS(t)
	o := bus.DefaultOptions()
	if mutate != nil {
		mutate(&o)
	}
	ctx := context.Background()
	if err := bus.Provision(ctx, n.JS, o); err != nil {
		t.Fatal(err)
	}
	b := &bed{t: t, n: n, js: n.JS}
	var err error
	if b.rows, err = n.JS.KeyValue(ctx, bus.BucketRows); err != nil {
		t.Fatal(err)
	}
	if b.cfg, err = n.JS.KeyValue(ctx, bus.BucketConfig); err != nil {
		t.Fatal(err)
	}
	b.markers()
	return b
}

// markers writes the markers control and the collector write once their
// first pass is done: the config is complete, the rows are synced.
func (b *bed) markers() {
	b.t.Helper()
	ctx := context.Background()
	if _, err := b.cfg.Put(ctx, bus.ConfigCompleteKey, []byte("2026-01-01T00:00:00Z")); err != nil {
		b.t.Fatal(err)
	}
	for i := range bus.DefaultCollectorShards {
		if _, err := b.rows.Put(ctx, bus.RowsSyncedShardKey(bus.DefaultCollectorShards, i), []byte("2026-01-01T00:00:00Z")); err != nil {
			b.t.Fatal(err)
		}
	}
}

// probe is an engine with what it did so far, counted through
// Options.Observe.
type probe struct {
	*Engine
	rowsRev atomic.Uint64 // last rows-bucket revision applied
	cfgRev  atomic.Uint64 // last config-bucket revision applied
	events  atomic.Int64  // snapshot events published
	settled atomic.Int64  // checks done
	gcRuns  atomic.Int64  // garbage collections done
	started atomic.Bool   // rebuild done
}

// newProbe creates an engine that counts into the returned probe.
func newProbe(ctx context.Context, js jetstream.JetStream, opts Options) (*probe, error) {
	p := &probe{}
	opts.Observe = p.observe
	e, err := New(ctx, js, opts)
	p.Engine = e
	return p, err
}

func (p *probe) observe(ev Event) {
	switch ev.Kind {
	case EventRebuilt:
		p.started.Store(true)
	case EventRowApplied:
		p.rowsRev.Store(ev.Revision)
	case EventConfigApplied:
		p.cfgRev.Store(ev.Revision)
	case EventChecked:
		p.settled.Add(1)
	case EventPublished:
		p.events.Add(1)
	case EventCollected:
		p.gcRuns.Add(1)
	}
}

// start runs an engine until the test ends and returns it.
func (b *bed) start(opts Options) *probe {
	b.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := newProbe(ctx, b.js, opts)
	if err != nil {
		b.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	b.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.t.Errorf("engine: %v", err)
		}
	})
	return e
}

// startStoppable runs an engine and returns it with a function stopping it.
func (b *bed) startStoppable(opts Options) (*probe, func()) {
	b.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := newProbe(ctx, b.js, opts)
	if err != nil {
		b.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				b.t.Errorf("engine: %v", err)
			}
		})
	}
	b.t.Cleanup(stop)
	return e, stop
}

func (b *bed) putInventory(inv busv1.InventoryConfig) uint64 {
	b.t.Helper()
	v, err := json.Marshal(inv)
	if err != nil {
		b.t.Fatal(err)
	}
	rev, err := b.cfg.Put(context.Background(), bus.ConfigKey(bus.ConfigRef{Kind: inv.Kind, Namespace: inv.Namespace, Name: inv.Name}), v)
	if err != nil {
		b.t.Fatal(err)
	}
	return rev
}

func (b *bed) deleteInventory(inv busv1.InventoryConfig) {
	b.t.Helper()
	if err := b.cfg.Delete(context.Background(), bus.ConfigKey(bus.ConfigRef{Kind: inv.Kind, Namespace: inv.Namespace, Name: inv.Name})); err != nil {
		b.t.Fatal(err)
	}
}

func (b *bed) putRow(r busv1.Row) uint64 {
	b.t.Helper()
	v, err := json.Marshal(busv1.RowEntry{Row: r, TargetGeneration: 1, ObservedAt: time.Now().UTC()})
	if err != nil {
		b.t.Fatal(err)
	}
	rev, err := b.rows.Put(context.Background(), bus.RowKey(r.Key()), v)
	if err != nil {
		b.t.Fatal(err)
	}
	return rev
}

func (b *bed) deleteRow(k busv1.RowKey) {
	b.t.Helper()
	if err := b.rows.Delete(context.Background(), bus.RowKey(k)); err != nil {
		b.t.Fatal(err)
	}
}

// history returns every event kept for inv.
func (b *bed) history(inv busv1.NamespacedName) []history.Stored {
	b.t.Helper()
	evs, err := history.Events(context.Background(), b.js, inv)
	if err != nil {
		b.t.Fatal(err)
	}
	return evs
}

// waitFor is the engine tests' wait, used by some hundred checks: it polls
// cond every 2ms and fails after 60s (benchmarks rebuild 100,000 rows on
// shared CPUs).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testenv.EventuallyTrue(t, 60*time.Second, what, cond, testenv.Every(2*time.Millisecond))
}

func nsInventory(ns, name string, bindings ...busv1.Binding) busv1.InventoryConfig {
	return busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: ns, Name: name, UID: "uid-" + name,
		Generation: 1, DeletionPolicy: busv1.DeletionRetain, Bindings: bindings}
}

func binding(name string, every time.Duration) busv1.Binding {
	return busv1.Binding{SinkRef: busv1.SinkRef{Family: busv1.FamilyEvent, Namespace: "team-a", Name: name},
		EffectiveInterval: busv1.Duration{Duration: every}}
}

func mkRow(tns, target, uid string, v any) busv1.Row {
	ns := tns
	if tns == "" {
		ns = "prod"
	}
	return busv1.Row{TargetNamespace: tns, TargetName: target, Namespace: ns, Name: "obj-" + uid, UID: uid,
		Version: "v1", Kind: "ConfigMap", Attributes: map[string]any{"v": v}}
}

func key(ns, name string) busv1.NamespacedName {
	return busv1.NamespacedName{Namespace: ns, Name: name}
}

func rowName(i int) string { return fmt.Sprintf("u%05d", i) }
