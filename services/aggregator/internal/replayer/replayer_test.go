package replayer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/memory"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/aggregator/internal/replayer"
)

var inv = busv1.NamespacedName{Namespace: "team-a", Name: "apps"}

// memBackend builds memory sinks, one store per sink name.
type memBackend map[string]*memory.Store

func (b memBackend) Type() string { return "memory" }

func (b memBackend) New(_ context.Context, cfg busv1.SinkConfig, _ backend.Credentials) (sink.Sink, error) {
	s, ok := b[cfg.Name]
	if !ok {
		return nil, sink.Permanent(fmt.Errorf("no store %s", cfg.Name))
	}
	return s.Sink(""), nil
}

func ref(name string) busv1.SinkRef {
	return busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-a", Name: name}
}

// bed is an embedded bus with the snapshot exporter runtime writing to
// memory sinks "live" and "fresh", both bound to inv, and a replayer.
type bed struct {
	t      *testing.T
	js     jetstream.JetStream
	nats   *testenv.NATS
	stores memBackend
	evs    []busv1.SnapshotEvent
}

func newBed(t *testing.T) *bed { return newBedWith(t, 10*time.Second) }

// newBedWith is newBed with the replayer's AckTimeout; the sink "broken"
// is bound too and refuses every write.
func newBedWith(t *testing.T, ackTimeout time.Duration) *bed {
	b := newBus(t, "memory", true)
	run(t, replayer.New(b.js, replayer.Options{AckTimeout: ackTimeout, Log: logr.Discard()}).Run)
	return b
}

// newBus is newBed without a replayer: the exporter runtime serves sinks
// of type typ, and when configs is set the bed writes the sink and
// inventory configs itself (otherwise control does).
func newBus(t *testing.T, typ string, configs bool) *bed {
	return newBusWith(t, typ, configs, bus.DefaultOptions())
}

// newBusWith is newBus on a bus provisioned with opts.
func newBusWith(t *testing.T, typ string, configs bool, opts bus.Options) *bed {
	n := testenv.StartNATS(t)
	ctx := t.Context()
	if err := bus.Provision(ctx, n.JS, opts); err != nil {
		t.Fatal(err)
	}
	b := &bed{t: t, js: n.JS, nats: n, stores: memBackend{"live": memory.NewStore(""), "fresh": memory.NewStore("")}}
	ic := busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name, Generation: 1}
	for _, s := range []string{"live", "fresh", "broken"} {
		if configs {
			b.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindSnapshotSink, Namespace: "team-a", Name: s}),
				busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: typ, Namespace: "team-a", Name: s,
					Generation: 1, Cluster: "east", Spec: json.RawMessage(`{}`)})
		}
		ic.Bindings = append(ic.Bindings, busv1.Binding{SinkRef: ref(s), SinkGeneration: 1})
	}
	if configs {
		b.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name}), ic)
	}
	c := exporter.DefaultConfig(busv1.FamilySnapshot)
	c.Credentials, c.RetryInitial, c.RetryMax, c.BreakerCooldown = backend.MapCredentials{}, 5*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond
	run(t, func(ctx context.Context) error { return exporter.Run(ctx, n.JS, c, typed{b.stores, typ}) })
	return b
}

// typed is a memBackend registered as another sink type.
type typed struct {
	memBackend
	typ string
}

func (b typed) Type() string { return b.typ }

// run runs f until the test ends and checks it returned nil.
func run(t *testing.T, f func(context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
}

func (b *bed) put(key string, v any) {
	b.t.Helper()
	kv, err := b.js.KeyValue(context.Background(), bus.BucketConfig)
	if err != nil {
		b.t.Fatal(err)
	}
	data, _ := json.Marshal(v)
	if _, err := kv.Put(context.Background(), key, data); err != nil {
		b.t.Fatal(err)
	}
}

// publish publishes revisions 1..n of inv to the live sink, as the
// aggregator would, revision r holding rows u1..ur, and waits until the
// live sink holds the last.
func (b *bed) publish(n int) {
	b.t.Helper()
	var rows []busv1.Row
	for rev := 1; rev <= n; rev++ {
		rows = append(rows, busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a",
			Name: fmt.Sprintf("u%d", rev), UID: fmt.Sprintf("u%d", rev), Version: "v1", Kind: "Pod", Attributes: map[string]any{}})
		envl, err := snapshot.Envelope(inv, uint64(rev), 1, rows)
		if err != nil {
			b.t.Fatal(err)
		}
		ev := busv1.SnapshotEvent{Inventory: inv, Revision: uint64(rev), Generation: 1, Checksum: envl.Checksum,
			ItemCount: envl.ItemCount, CreatedAt: time.Date(2026, 11, 30, rev, 0, 0, 0, time.UTC), Reason: busv1.ReasonChange,
			Envelope: &envl, Bindings: []busv1.Binding{{SinkRef: ref("live"), SinkGeneration: 1}}}
		data, _ := json.Marshal(ev)
		if _, err := b.js.Publish(context.Background(), bus.SnapshotSubject(inv), data); err != nil {
			b.t.Fatal(err)
		}
		b.evs = append(b.evs, ev)
	}
	testenv.EventuallyTrue(b.t, 30*time.Second, "the live sink to hold the last revision", func() bool {
		ws := b.stores["live"].Writes()
		return len(ws) > 0 && ws[len(ws)-1].Revision == uint64(n)
	})
}

// replay writes a replay request of the fresh sink and returns its final
// report.
func (b *bed) replay(name string, mod func(*busv1.ReplayRequest)) busv1.ReplayStatus {
	b.t.Helper()
	req := busv1.ReplayRequest{Namespace: "team-a", Name: name, UID: "uid-" + name, Generation: 1,
		InventoryKind: busv1.KindInventory, Inventory: inv, Sink: ref("fresh"), RequestedAt: time.Now().UTC(), RequestedBy: "test"}
	if mod != nil {
		mod(&req)
	}
	b.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindReplay, Namespace: "team-a", Name: name}), req)
	subject := bus.StatusSubject(bus.StatusAddress{Service: busv1.ServiceAggregator, Kind: busv1.KindReplay, Namespace: "team-a", Name: name})
	var st busv1.ReplayStatus
	testenv.EventuallyTrue(b.t, 30*time.Second, "the replay to finish", func() bool {
		s, err := b.js.Stream(context.Background(), bus.StreamStatus)
		if err != nil {
			b.t.Fatal(err)
		}
		m, err := s.GetLastMsgForSubject(context.Background(), subject)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return false
		}
		if err != nil {
			b.t.Fatal(err)
		}
		var r busv1.StatusReport
		if err := json.Unmarshal(m.Data, &r); err != nil || r.Replay == nil {
			b.t.Fatalf("report %s: %v", m.Data, err)
		}
		st = *r.Replay
		return st.Phase == busv1.ReplaySucceeded || st.Phase == busv1.ReplayFailed
	})
	return st
}

// freshWrites returns the revisions written to the fresh sink, in order.
func (b *bed) freshWrites() []uint64 {
	var out []uint64
	for _, w := range b.stores["fresh"].Writes() {
		out = append(out, w.Revision)
	}
	return out
}

func TestABackfillDeliversEveryRetainedRevisionInOrderToANewSink(t *testing.T) {
	b := newBed(t)
	b.publish(6)
	before := b.stores["live"].Writes()
	st := b.replay("backfill", func(r *busv1.ReplayRequest) { r.Backfill = true })
	if st.Phase != busv1.ReplaySucceeded || st.RevisionsTotal != 6 || st.RevisionsDone != 6 || st.LastRevision != 6 {
		t.Fatalf("final status %+v, want 6 of 6 revisions delivered", st)
	}
	if diff := cmp.Diff([]uint64{1, 2, 3, 4, 5, 6}, b.freshWrites()); diff != "" {
		t.Errorf("writes to the fresh sink (-want +got):\n%s", diff)
	}
	live, _ := b.stores["live"].Get("east", inv)
	fresh, _ := b.stores["fresh"].Get("east", inv)
	if fresh.Revision != 6 || fresh.Checksum != live.Checksum || !cmp.Equal(fresh.Rows, live.Rows) {
		t.Errorf("the fresh sink holds revision %d (%s), the live one %d (%s)", fresh.Revision, fresh.Checksum, live.Revision, live.Checksum)
	}
	if diff := cmp.Diff(before, b.stores["live"].Writes()); diff != "" {
		t.Errorf("the backfill wrote to the live sink too (-before +after):\n%s", diff)
	}
}

func TestABackfillRangeAndASingleRevision(t *testing.T) {
	b := newBed(t)
	b.publish(5)
	st := b.replay("range", func(r *busv1.ReplayRequest) { r.Backfill, r.FromRevision, r.ToRevision = true, 2, 4 })
	if st.Phase != busv1.ReplaySucceeded || st.RevisionsDone != 3 {
		t.Fatalf("range: %+v", st)
	}
	st = b.replay("one", func(r *busv1.ReplayRequest) { r.Revision = 1 })
	if st.Phase != busv1.ReplaySucceeded || st.RevisionsDone != 1 {
		t.Fatalf("one revision: %+v", st)
	}
	st = b.replay("at", func(r *busv1.ReplayRequest) { r.At = time.Date(2026, 11, 30, 3, 30, 0, 0, time.UTC) })
	if st.Phase != busv1.ReplaySucceeded || st.LastRevision != 3 {
		t.Fatalf("at 03:30: %+v, want revision 3", st)
	}
	if diff := cmp.Diff([]uint64{2, 3, 4, 1, 3}, b.freshWrites()); diff != "" {
		t.Errorf("writes to the fresh sink (-want +got):\n%s", diff)
	}
}

func TestAReplayFailsWithAReasonNamingWhatIsMissing(t *testing.T) {
	b := newBed(t)
	b.publish(2)
	tests := []struct {
		name   string
		mod    func(*busv1.ReplayRequest)
		reason string
		msg    string
	}{
		{"a revision the bus does not retain", func(r *busv1.ReplayRequest) { r.Revision = 9 },
			v1alpha1.ReasonRevisionNotRetained, "revision 9 of team-a/apps is not retained (retained revisions 1 to 2)"},
		{"a time before the oldest revision", func(r *busv1.ReplayRequest) { r.At = time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC) },
			v1alpha1.ReasonRevisionNotRetained, "no retained revision of team-a/apps was created at or before 2026-11-29T00:00:00Z"},
		{"a sink the inventory does not bind", func(r *busv1.ReplayRequest) { r.Sink = ref("other") },
			v1alpha1.ReasonSinkNotFound, "inventory team-a/apps does not bind sink snapshot/other"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := b.replay(fmt.Sprintf("bad-%d", i), tt.mod)
			if st.Phase != busv1.ReplayFailed || st.Reason != tt.reason || !strings.HasPrefix(st.Message, tt.msg) {
				t.Errorf("status %+v, want Failed %s: %s", st, tt.reason, tt.msg)
			}
		})
	}
	if got := b.freshWrites(); len(got) != 0 {
		t.Errorf("failed replays wrote %v to the sink", got)
	}
}
