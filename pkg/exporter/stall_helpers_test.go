package exporter_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
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

// tarpit is a sink that accepts a write and does not answer until it is
// opened: a write blocks until its context ends, recording why, or until
// the tarpit opens; with ignoreCancel it records the end of its context and
// still waits for the tarpit to open, then succeeds.
type tarpit struct {
	ignoreCancel bool

	mu      sync.Mutex
	open    chan struct{}
	entered map[busv1.NamespacedName]int
	ended   []tarpitEnd
	written map[busv1.NamespacedName]uint64
}

// tarpitEnd is one write whose context ended in the tarpit.
type tarpitEnd struct {
	at    time.Time
	cause error
}

func newTarpit() *tarpit {
	return &tarpit{open: make(chan struct{}), entered: map[busv1.NamespacedName]int{}, written: map[busv1.NamespacedName]uint64{}}
}

func (p *tarpit) Write(ctx context.Context, s sink.Snapshot) error {
	inv := s.Envelope.Inventory
	p.mu.Lock()
	p.entered[inv]++
	open := p.open
	p.mu.Unlock()
	select {
	case <-ctx.Done():
		p.mu.Lock()
		p.ended = append(p.ended, tarpitEnd{at: time.Now(), cause: context.Cause(ctx)})
		p.mu.Unlock()
		if !p.ignoreCancel {
			return ctx.Err()
		}
		<-open
	case <-open:
	}
	p.mu.Lock()
	p.written[inv] = max(p.written[inv], s.Envelope.Revision)
	p.mu.Unlock()
	return nil
}

func (p *tarpit) Close(context.Context) error { return nil }

// release lets every write, blocked or to come, through; calling it again
// does nothing.
func (p *tarpit) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
	default:
		close(p.open)
	}
}

// entries returns how many inventories entered a write, and how many
// writes entered in all.
func (p *tarpit) entries() (inventories, writes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, n := range p.entered {
		writes += n
	}
	return len(p.entered), writes
}

// ends returns the writes ended by their context.
func (p *tarpit) ends() []tarpitEnd {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]tarpitEnd(nil), p.ended...)
}

// writtenOf returns the newest revision of inv the tarpit let through.
func (p *tarpit) writtenOf(inv busv1.NamespacedName) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.written[inv]
}

// stallEnv is a bus with a tarpit sink in namespace team-x and a memory
// sink in namespace team-y; inventories need no config (an inventory
// without one keeps the bindings its events name).
type stallEnv struct {
	t     *testing.T
	n     *testenv.NATS
	pit   *tarpit
	store *memory.Store
}

var (
	tarpitRef = busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-x", Name: "tarpit"}
	goodRef   = busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-y", Name: "good"}
)

// newStallEnv provisions the bus with the exporters' MaxAckPending and ack
// wait set, and configures both sinks.
func newStallEnv(t *testing.T, maxAckPending int, ackWait time.Duration) *stallEnv {
	n := testenv.StartNATS(t)
	o := bus.DefaultOptions()
	o.ExporterMaxAckPending, o.ExporterAckWait = maxAckPending, ackWait
	if err := bus.Provision(context.Background(), n.JS, o); err != nil {
		t.Fatal(err)
	}
	e := &stallEnv{t: t, n: n, pit: newTarpit(), store: memory.NewStore("")}
	kv, err := n.JS.KeyValue(context.Background(), bus.BucketConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []busv1.SinkRef{tarpitRef, goodRef} {
		sc := busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "memory", Namespace: r.Namespace, Name: r.Name,
			Generation: 1, Cluster: "east", Spec: json.RawMessage(`{}`)}
		b, _ := json.Marshal(sc)
		key := bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindSnapshotSink, Namespace: r.Namespace, Name: r.Name})
		if _, err := kv.Put(context.Background(), key, b); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// backend returns a backend over the env's sinks.
func (e *stallEnv) backend() backend.Backend { return stallSinks{e} }

// stallSinks builds the sink named "tarpit" as the env's tarpit and any
// other as a sink of its memory store.
type stallSinks struct{ e *stallEnv }

func (s stallSinks) Type() string { return "memory" }

func (s stallSinks) New(_ context.Context, cfg busv1.SinkConfig, _ backend.Credentials) (sink.Sink, error) {
	if cfg.Name == tarpitRef.Name {
		return s.e.pit, nil
	}
	return s.e.store.Sink(""), nil
}

// connect opens a connection of its own to url (the env's server or a
// proxy in front of it), reconnecting for ever, closed when the test ends.
func (e *stallEnv) connect(url string) jetstream.JetStream {
	e.t.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		e.t.Fatal(err)
	}
	return js
}

// start runs a runtime on js until the test ends; mod tunes its config.
// Its returned error is not checked: a runtime cut off from the bus may
// end with one.
func (e *stallEnv) start(js jetstream.JetStream, mod func(*exporter.Config)) {
	c := exporter.DefaultConfig(busv1.FamilySnapshot)
	c.Credentials = backend.MapCredentials{}
	c.RetryInitial, c.RetryMax, c.BreakerCooldown = 5*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond
	if mod != nil {
		mod(&c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = exporter.Run(ctx, js, c, e.backend())
	}()
	e.t.Cleanup(func() {
		cancel()
		<-done
	})
	// Runs first: a write that ignores cancellation must not hold the
	// runtime's shutdown when a test fails.
	e.t.Cleanup(e.pit.release)
}

// tenantInv names inventory i of namespace ns.
func tenantInv(ns string, i int) busv1.NamespacedName {
	return busv1.NamespacedName{Namespace: ns, Name: "inv-" + string(rune('a'+i/26)) + string(rune('a'+i%26))}
}

// send publishes revision rev of inv, one row, bound to ref.
func (e *stallEnv) send(inv busv1.NamespacedName, rev uint64, ref busv1.SinkRef) {
	e.t.Helper()
	r := busv1.Row{TargetNamespace: inv.Namespace, TargetName: "pods", Namespace: inv.Namespace, Name: inv.Name,
		UID: inv.Name, Version: "v1", Kind: "Pod", Attributes: map[string]any{}}
	envl, err := snapshot.Envelope(inv, rev, 1, []busv1.Row{r})
	if err != nil {
		e.t.Fatal(err)
	}
	ev := busv1.SnapshotEvent{Inventory: inv, Revision: rev, Generation: 1, Checksum: envl.Checksum,
		ItemCount: envl.ItemCount, CreatedAt: time.Now(), Reason: busv1.ReasonChange, Envelope: &envl,
		Bindings: []busv1.Binding{{SinkRef: ref, SinkGeneration: 1}}}
	b, _ := json.Marshal(ev)
	if _, err := e.n.JS.Publish(context.Background(), bus.SnapshotSubject(inv), b); err != nil {
		e.t.Fatal(err)
	}
}

// consumer returns the family consumer's messages unacknowledged and not
// yet delivered.
func (e *stallEnv) consumer() (ackPending, undelivered int) {
	e.t.Helper()
	c, err := e.n.JS.Consumer(context.Background(), bus.StreamSnapshots, bus.ExporterConsumer(busv1.FamilySnapshot))
	if err != nil {
		e.t.Fatal(err)
	}
	info, err := c.Info(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return info.NumAckPending, int(info.NumPending)
}

// stateOf returns the export state of (inv, ref) and its KV revision; a
// zero revision when there is none.
func (e *stallEnv) stateOf(inv busv1.NamespacedName, ref busv1.SinkRef) (busv1.ExportState, uint64) {
	e.t.Helper()
	kv, err := e.n.JS.KeyValue(context.Background(), bus.BucketExportState)
	if err != nil {
		e.t.Fatal(err)
	}
	v, err := kv.Get(context.Background(), bus.ExportStateKey(inv, ref))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return busv1.ExportState{}, 0
	}
	if err != nil {
		e.t.Fatal(err)
	}
	var st busv1.ExportState
	if err := json.Unmarshal(v.Value(), &st); err != nil {
		e.t.Fatal(err)
	}
	return st, v.Revision()
}

// putState writes the export state of (inv, ref) as another replica would
// and returns its KV revision.
func (e *stallEnv) putState(inv busv1.NamespacedName, ref busv1.SinkRef, st busv1.ExportState) uint64 {
	e.t.Helper()
	kv, err := e.n.JS.KeyValue(context.Background(), bus.BucketExportState)
	if err != nil {
		e.t.Fatal(err)
	}
	b, _ := json.Marshal(st)
	rev, err := kv.Put(context.Background(), bus.ExportStateKey(inv, ref), b)
	if err != nil {
		e.t.Fatal(err)
	}
	return rev
}

// lastOn decodes the last message on subject of stream into v; false when
// there is none.
func (e *stallEnv) lastOn(stream, subject string, v any) bool {
	e.t.Helper()
	return lastMessage(e.t, e.n.JS, stream, subject, v)
}

// exportStatus returns the last export status of (inv, ref), nil when none.
func (e *stallEnv) exportStatus(inv busv1.NamespacedName, ref busv1.SinkRef) *busv1.ExportStatus {
	r := busv1.StatusReport{Service: busv1.ServiceSnapshotExporter, Kind: busv1.KindInventory, Namespace: inv.Namespace,
		Name: inv.Name, Export: &busv1.ExportStatus{Sink: ref}}
	var got busv1.StatusReport
	if !e.lastOn(bus.StreamStatus, bus.StatusSubjectFor(r), &got) {
		return nil
	}
	return got.Export
}
