package exporter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/memory"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
)

var inv = busv1.NamespacedName{Namespace: "team-a", Name: "web"}

// memSpec is the spec of a memory sink in these tests.
type memSpec struct {
	SecretRef string `json:"secretRef"`
}

// backend builds memory sinks, one store per sink name, and records every
// call of Write per sink so tests see what the runtime asked for, not only
// what the store kept.
type memBackend struct {
	mu     sync.Mutex
	stores map[string]*memory.Store
	calls  map[string][]uint64
	deltas map[string][]sink.Snapshot
	builds map[string]int
	starts map[string][]uint64 // revisions written with BackfillStart
	gates  map[string]*gate    // Write waits on the sink's gate, if any
}

// gate stops a sink's writes until opened: entered receives each write
// that waits on it.
type gate struct {
	entered chan uint64
	open    chan struct{}
}

// block makes sink name's writes wait until the returned gate's open is
// closed (or the write's context ends).
func (b *memBackend) block(name string) *gate {
	g := &gate{entered: make(chan uint64, 16), open: make(chan struct{})}
	b.mu.Lock()
	b.gates[name] = g
	b.mu.Unlock()
	return g
}

func newBackend(sinks ...string) *memBackend {
	b := &memBackend{stores: map[string]*memory.Store{}, calls: map[string][]uint64{}, deltas: map[string][]sink.Snapshot{},
		builds: map[string]int{}, starts: map[string][]uint64{}, gates: map[string]*gate{}}
	for _, s := range sinks {
		b.stores[s] = memory.NewStore("good-token")
	}
	return b
}

func (b *memBackend) Type() string { return "memory" }

func (b *memBackend) New(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (sink.Sink, error) {
	var spec memSpec
	if err := json.Unmarshal(cfg.Spec, &spec); err != nil {
		return nil, sink.Permanent(err)
	}
	data, err := creds.Secret(ctx, cfg.Namespace, spec.SecretRef)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.builds[cfg.Name]++
	b.mu.Unlock()
	return &counting{Sink: b.stores[cfg.Name].Sink(string(data["token"])), b: b, name: cfg.Name}, nil
}

// buildsOf returns how many times sink name was built.
func (b *memBackend) buildsOf(name string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.builds[name]
}

// callsOf returns the revisions the runtime wrote to sink name, in order.
func (b *memBackend) callsOf(name string) []uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]uint64(nil), b.calls[name]...)
}

type counting struct {
	*memory.Sink
	b    *memBackend
	name string
}

// deltasOf returns the snapshots the runtime handed to sink name's
// WriteDelta, in order.
func (b *memBackend) deltasOf(name string) []sink.Snapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]sink.Snapshot(nil), b.deltas[name]...)
}

func (c *counting) WriteDelta(ctx context.Context, s sink.Snapshot) error {
	c.b.mu.Lock()
	c.b.deltas[c.name] = append(c.b.deltas[c.name], s)
	c.b.mu.Unlock()
	return c.Sink.WriteDelta(ctx, s)
}

func (c *counting) Write(ctx context.Context, s sink.Snapshot) error {
	c.b.mu.Lock()
	c.b.calls[c.name] = append(c.b.calls[c.name], s.Envelope.Revision)
	if s.BackfillStart {
		c.b.starts[c.name] = append(c.b.starts[c.name], s.Envelope.Revision)
	}
	g := c.b.gates[c.name]
	c.b.mu.Unlock()
	if g != nil {
		g.entered <- s.Envelope.Revision
		select {
		case <-g.open:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return c.Sink.Write(ctx, s)
}

var creds = backend.MapCredentials{
	{Namespace: "team-a", Name: "good"}: {"token": []byte("good-token")},
	{Namespace: "team-a", Name: "bad"}:  {"token": []byte("wrong")},
}

// env is an embedded, provisioned bus holding an inventory bound to sinks.
type env struct {
	t testing.TB
	n *testenv.NATS
	b *memBackend
}

// newEnv provisions the bus and configures inv bound to each sink; a sink
// whose name starts with "bad" uses the refused token, one whose name starts
// with "unset" names a Secret that does not exist.
func newEnv(t testing.TB, sinks ...string) *env {
	n := testenv.StartNATS(t)
	ctx := context.Background()
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, n: n, b: newBackend(sinks...)}
	ic := busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name, Generation: 1}
	for _, s := range sinks {
		secret := "good"
		switch {
		case strings.HasPrefix(s, "bad"):
			secret = "bad"
		case strings.HasPrefix(s, "unset"):
			secret = "missing"
		}
		spec, _ := json.Marshal(memSpec{SecretRef: secret})
		sc := busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "memory", Namespace: "team-a", Name: s,
			Generation: 1, Cluster: "east", Spec: spec}
		e.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindSnapshotSink, Namespace: "team-a", Name: s}), sc)
		ic.Bindings = append(ic.Bindings, binding(s))
	}
	e.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name}), ic)
	return e
}

func binding(s string) busv1.Binding {
	return busv1.Binding{SinkRef: ref(s), SinkGeneration: 1}
}

func ref(s string) busv1.SinkRef {
	return busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-a", Name: s}
}

func (e *env) put(key string, v any) {
	e.t.Helper()
	kv, err := e.n.JS.KeyValue(context.Background(), bus.BucketConfig)
	if err != nil {
		e.t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if _, err := kv.Put(context.Background(), key, b); err != nil {
		e.t.Fatal(err)
	}
}

// start runs one exporter runtime until the test ends.
func (e *env) start(mod func(*exporter.Config)) {
	e.t.Cleanup(e.startStoppable(mod))
}

// startStoppable runs one exporter runtime and returns the function that
// stops it and checks it returned nil; calling it more than once is safe.
func (e *env) startStoppable(mod func(*exporter.Config)) func() {
	c := exporter.DefaultConfig(busv1.FamilySnapshot)
	c.Credentials, c.RetryInitial, c.RetryMax, c.BreakerCooldown = creds, 5*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond
	if mod != nil {
		mod(&c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- exporter.Run(ctx, e.n.JS, c, e.b) }()
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				e.t.Errorf("exporter: %v", err)
			}
		})
	}
}

// publish publishes revision rev of inv holding rows named uids, addressed
// to sinks.
func (e *env) publish(rev uint64, reason busv1.SnapshotReason, sinks []string, uids ...string) busv1.SnapshotEvent {
	e.t.Helper()
	ev := e.event(rev, reason, sinks, uids...)
	e.send(ev)
	return ev
}

// event builds revision rev of inv with an inline envelope.
func (e *env) event(rev uint64, reason busv1.SnapshotReason, sinks []string, uids ...string) busv1.SnapshotEvent {
	e.t.Helper()
	var rows []busv1.Row
	for _, u := range uids {
		rows = append(rows, row(u))
	}
	envl, err := snapshot.Envelope(inv, rev, 1, rows)
	if err != nil {
		e.t.Fatal(err)
	}
	ev := busv1.SnapshotEvent{Inventory: inv, Revision: rev, Generation: 1, Checksum: envl.Checksum,
		ItemCount: envl.ItemCount, CreatedAt: time.Now(), Reason: reason, Envelope: &envl}
	for _, s := range sinks {
		ev.Bindings = append(ev.Bindings, binding(s))
	}
	return ev
}

func row(uid string) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: uid,
		UID: uid, Version: "v1", Kind: "Pod", Attributes: map[string]any{}}
}

// send publishes ev on its inventory's subject.
func (e *env) send(ev busv1.SnapshotEvent) {
	e.t.Helper()
	b, _ := json.Marshal(ev)
	if _, err := e.n.JS.Publish(context.Background(), bus.SnapshotSubject(inv), b); err != nil {
		e.t.Fatal(err)
	}
}

// stored returns the revision the sink's store holds (0 for none).
func (e *env) stored(s string) uint64 {
	v, _ := e.b.stores[s].Get("east", inv)
	return v.Revision
}

// last decodes the last message on subject of stream into v; false when
// there is none.
func (e *env) last(stream, subject string, v any) bool {
	e.t.Helper()
	return lastMessage(e.t, e.n.JS, stream, subject, v)
}

// lastMessage decodes the last message on subject of stream into v; false
// when there is none.
func lastMessage(t testing.TB, js jetstream.JetStream, stream, subject string, v any) bool {
	t.Helper()
	st, err := js.Stream(context.Background(), stream)
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.GetLastMsgForSubject(context.Background(), subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(m.Data, v); err != nil {
		t.Fatal(err)
	}
	return true
}

// status returns the last export status of sink s, nil when none.
func (e *env) status(s string) *busv1.ExportStatus {
	r := busv1.StatusReport{Service: busv1.ServiceSnapshotExporter, Kind: busv1.KindInventory, Namespace: inv.Namespace,
		Name: inv.Name, Export: &busv1.ExportStatus{Sink: ref(s)}}
	var got busv1.StatusReport
	if !e.last(bus.StreamStatus, bus.StatusSubjectFor(r), &got) {
		return nil
	}
	return got.Export
}

// ackPending returns the number of messages the consumer waits acks for.
func (e *env) ackPending() int {
	c, err := e.n.JS.Consumer(context.Background(), bus.StreamSnapshots, bus.ExporterConsumer(busv1.FamilySnapshot))
	if err != nil {
		e.t.Fatal(err)
	}
	info, err := c.Info(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return info.NumAckPending + int(info.NumPending)
}

// waitFor is the exporter tests' wait, used by some hundred and fifty
// checks: it polls cond every 5ms and fails after 20s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testenv.EventuallyTrue(t, 20*time.Second, what, cond, testenv.Every(5*time.Millisecond))
}
