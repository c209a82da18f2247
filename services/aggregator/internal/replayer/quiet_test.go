package replayer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/aggregator/internal/replayer"
)

// newQuietBus is a bus without exporters: a replay publishes its first
// revision and waits for an acknowledgement that never comes, so it stays
// Running until it is stopped.
func newQuietBus(t *testing.T) *bed { return newQuietBusWith(t, bus.DefaultOptions()) }

// newQuietBusWith is newQuietBus on a bus provisioned with opts.
func newQuietBusWith(t *testing.T, opts bus.Options) *bed {
	n := testenv.StartNATS(t)
	if err := bus.Provision(t.Context(), n.JS, opts); err != nil {
		t.Fatal(err)
	}
	return &bed{t: t, js: n.JS, nats: n}
}

// quietOptions are replayer options under which a replay on a quiet bus
// never finishes by itself.
func quietOptions(log logr.Logger) replayer.Options {
	return replayer.Options{AckTimeout: time.Hour, ReportRetryMax: time.Second, Log: log}
}

// startWith runs a replayer with opts on b's bus until stop, which waits
// until it returned (an aggregator stepping down or crashing).
func (b *bed) startWith(opts replayer.Options) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- replayer.New(b.js, opts).Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			b.t.Errorf("replayer: %v", err)
		}
	}
	b.t.Cleanup(stop)
	return stop
}

// inventoryAs writes the config of inventory ns/name, of uid uid, binding
// the sink "fresh" of ns, and publishes revisions 1..n of it stamped with
// uid, each bound to nothing (no exporter writes them).
func (b *bed) inventoryAs(ns, name, uid string, n int) busv1.NamespacedName {
	b.t.Helper()
	inv := busv1.NamespacedName{Namespace: ns, Name: name}
	b.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindInventory, Namespace: ns, Name: name}), busv1.InventoryConfig{
		Kind: busv1.KindInventory, Namespace: ns, Name: name, UID: uid, Generation: 1,
		Bindings: []busv1.Binding{{SinkRef: busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: ns, Name: "fresh"}, SinkGeneration: 1}}})
	for rev := 1; rev <= n; rev++ {
		b.publishEvent(busv1.SnapshotEvent{Inventory: inv, InventoryUID: uid, Revision: uint64(rev), Generation: 1,
			Checksum: fmt.Sprintf("%s-%d", uid, rev), CreatedAt: time.Date(2026, 11, 30, rev, 0, 0, 0, time.UTC), Reason: busv1.ReasonChange})
	}
	return inv
}

func (b *bed) publishEvent(ev busv1.SnapshotEvent) {
	b.t.Helper()
	data, err := json.Marshal(ev)
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.js.Publish(context.Background(), bus.SnapshotSubject(ev.Inventory), data); err != nil {
		b.t.Fatal(err)
	}
}

// request writes replay ns/name of the latest revision of inv to the sink
// "fresh" of ns, changed by mods.
func (b *bed) request(ns, name string, inv busv1.NamespacedName, mods ...func(*busv1.ReplayRequest)) {
	b.t.Helper()
	req := busv1.ReplayRequest{Namespace: ns, Name: name, UID: "uid-" + name, Generation: 1,
		InventoryKind: busv1.KindInventory, Inventory: inv, Sink: busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: ns, Name: "fresh"},
		RequestedAt: time.Now().UTC(), RequestedBy: "test"}
	for _, m := range mods {
		m(&req)
	}
	b.put(replayKey(ns, name), req)
}

func replayKey(ns, name string) string {
	return bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindReplay, Namespace: ns, Name: name})
}

// withdraw deletes replay ns/name's request (its KollectReplay was
// deleted): the replayer stops it.
func (b *bed) withdraw(ns, name string) {
	b.t.Helper()
	kv, err := b.js.KeyValue(context.Background(), bus.BucketConfig)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := kv.Delete(context.Background(), replayKey(ns, name)); err != nil {
		b.t.Fatal(err)
	}
}

func replaySubject(ns, name string) string {
	return bus.StatusSubject(bus.StatusAddress{Service: busv1.ServiceAggregator, Kind: busv1.KindReplay, Namespace: ns, Name: name})
}

// lastReport returns replay ns/name's last report, nil when there is none.
func (b *bed) lastReport(ns, name string) *busv1.ReplayStatus {
	b.t.Helper()
	m := b.lastReportMsg(ns, name)
	if m == nil {
		return nil
	}
	var r busv1.StatusReport
	if err := json.Unmarshal(m.Data, &r); err != nil || r.Replay == nil {
		b.t.Fatalf("report %s: %v", m.Data, err)
	}
	return r.Replay
}

// lastReportSeq returns the stream sequence of replay ns/name's last
// report, 0 when there is none.
func (b *bed) lastReportSeq(ns, name string) uint64 {
	b.t.Helper()
	if m := b.lastReportMsg(ns, name); m != nil {
		return m.Sequence
	}
	return 0
}

func (b *bed) lastReportMsg(ns, name string) *jetstream.RawStreamMsg {
	b.t.Helper()
	s, err := b.js.Stream(context.Background(), bus.StreamStatus)
	if err != nil {
		b.t.Fatal(err)
	}
	m, err := s.GetLastMsgForSubject(context.Background(), replaySubject(ns, name))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil
	}
	if err != nil {
		b.t.Fatal(err)
	}
	return m
}

// waitReport waits until replay ns/name's last report satisfies ok and
// returns it.
func (b *bed) waitReport(ns, name, what string, ok func(busv1.ReplayStatus) bool) busv1.ReplayStatus {
	b.t.Helper()
	var st busv1.ReplayStatus
	testenv.Eventually(b.t, 30*time.Second, ns+"/"+name+" "+what, func() error {
		last := b.lastReport(ns, name)
		if last == nil {
			return errors.New("no report")
		}
		if st = *last; !ok(st) {
			return fmt.Errorf("last report %+v", st)
		}
		return nil
	})
	return st
}

func running(st busv1.ReplayStatus) bool { return st.Phase == busv1.ReplayRunning }
func pending(st busv1.ReplayStatus) bool { return st.Phase == busv1.ReplayPending }
