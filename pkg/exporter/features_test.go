package exporter_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr/funcr"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

func TestAnEnvelopeInTheObjectStoreIsLoaded(t *testing.T) {
	e := newEnv(t, "good")
	e.start(nil)
	ev := e.event(1, busv1.ReasonChange, []string{"good"}, "a", "b", "c")
	b, err := json.Marshal(ev.Envelope)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := e.n.JS.ObjectStore(context.Background(), bus.ObjectStoreEnvelopes)
	if err != nil {
		t.Fatal(err)
	}
	name := bus.EnvelopeObjectName(inv, 1)
	info, err := obs.PutBytes(context.Background(), name, b)
	if err != nil {
		t.Fatal(err)
	}
	ev.Envelope = nil
	ev.EnvelopeRef = &busv1.ObjectRef{Bucket: bus.ObjectStoreEnvelopes, Name: name, Size: int64(info.Size), Digest: info.Digest}
	e.send(ev)
	waitFor(t, "revision 1", func() bool { return e.stored("good") == 1 })
	if got, _ := e.b.stores["good"].Get("east", inv); len(got.Rows) != 3 || got.Checksum != ev.Checksum {
		t.Fatalf("stored %d rows with checksum %s, want 3 rows with %s", len(got.Rows), got.Checksum, ev.Checksum)
	}
}

func TestADeltaIsAppliedOnlyAtItsBaseRevision(t *testing.T) {
	e := newEnv(t, "good")
	e.start(nil)
	deltaThenGap(t, e)
	var deltas []bool
	for _, w := range e.b.stores["good"].Writes() {
		deltas = append(deltas, w.Delta)
	}
	if len(deltas) != 3 || deltas[0] || !deltas[1] || deltas[2] {
		t.Fatalf("writes applied a delta %v, want [false true false]", deltas)
	}
	if got, _ := e.b.stores["good"].Get("east", inv); len(got.Rows) != 1 || got.Rows[0].UID != "d" {
		t.Fatalf("stored rows %+v, want only d", got.Rows)
	}
}

func TestADeletedInventoryIsRemovedOnlyWithDeletionPolicyDelete(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy busv1.DeletionPolicy
		kept   bool
	}{
		{"Retain keeps the exported data", busv1.DeletionRetain, true},
		{"Delete removes the exported data", busv1.DeletionDelete, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "good")
			e.start(nil)
			e.publish(1, busv1.ReasonChange, []string{"good"}, "a")
			waitFor(t, "revision 1", func() bool { return e.stored("good") == 1 })
			ev := e.event(2, busv1.ReasonDeleted, []string{"good"})
			ev.DeletionPolicy = tc.policy
			e.send(ev)
			if !tc.kept {
				waitFor(t, "the data removed", func() bool { _, kept := e.b.stores["good"].Get("east", inv); return !kept })
			}
			waitFor(t, "the deletion acknowledged", func() bool { return e.ackPending() == 0 })
			if _, kept := e.b.stores["good"].Get("east", inv); kept != tc.kept {
				t.Fatalf("data kept = %v, want %v", kept, tc.kept)
			}
		})
	}
}

// A replica stopped while a binding retries releases the message at once, so
// another replica delivers it without waiting for the ack wait (2 minutes,
// longer than this test's deadline).
func TestAStoppedReplicaReleasesItsInFlightWork(t *testing.T) {
	e := newEnv(t, "flaky")
	var down atomic.Bool
	down.Store(true)
	e.b.stores["flaky"].FailWith(func(sink.Snapshot) error {
		if down.Load() {
			return errors.New("connection refused")
		}
		return nil
	})
	stop := e.startStoppable(nil)
	t.Cleanup(stop)
	e.publish(1, busv1.ReasonChange, []string{"flaky"}, "a")
	waitFor(t, "a failed attempt", func() bool { return len(e.b.callsOf("flaky")) >= 1 })
	stop()
	down.Store(false)
	e.start(nil)
	waitFor(t, "revision 1 delivered by the other replica", func() bool { return e.stored("flaky") == 1 })
	waitFor(t, "the message acknowledged", func() bool { return e.ackPending() == 0 })
}

func TestAnUndecodableEventIsTerminatedAndDeadLettered(t *testing.T) {
	e := newEnv(t, "good")
	e.start(nil)
	if _, err := e.n.JS.Publish(context.Background(), bus.SnapshotSubject(inv), []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	var dl busv1.DeadLetter
	waitFor(t, "a dead letter", func() bool {
		return e.last(bus.StreamDeadLetters, bus.DeadLetterSubject(busv1.FamilySnapshot, inv), &dl)
	})
	if dl.Reason != v1alpha1.ReasonEventUndecodable || dl.Sink != nil || dl.StreamSequence == 0 {
		t.Fatalf("dead letter %+v", dl)
	}
	waitFor(t, "the message terminated", func() bool { return e.ackPending() == 0 })
	e.publish(1, busv1.ReasonChange, []string{"good"}, "a")
	waitFor(t, "the next event delivered", func() bool { return e.stored("good") == 1 })
}

// A sink whose config changes is rebuilt from the new generation: fixing
// its Secret reference ends the permanent failure with the next revision.
func TestAChangedSinkConfigRebuildsTheSink(t *testing.T) {
	e := newEnv(t, "bad")
	e.start(nil)
	e.publish(1, busv1.ReasonChange, []string{"bad"}, "a")
	waitFor(t, "a permanent status", func() bool { s := e.status("bad"); return s != nil && s.Permanent })
	spec, _ := json.Marshal(memSpec{SecretRef: "good"})
	e.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindSnapshotSink, Namespace: "team-a", Name: "bad"}),
		busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "memory", Namespace: "team-a", Name: "bad",
			Generation: 2, Cluster: "east", Spec: spec})
	ev := e.event(2, busv1.ReasonChange, []string{"bad"}, "a")
	ev.Bindings[0].SinkGeneration = 2
	e.send(ev)
	waitFor(t, "revision 2 delivered", func() bool { return e.stored("bad") == 2 })
	waitFor(t, "an OK status", func() bool { s := e.status("bad"); return s != nil && s.OK && !s.Permanent })
}

func TestAnExporterStartedBeforeTheBusIsProvisionedWaitsForIt(t *testing.T) {
	n := testenv.StartNATS(t)
	c := exporter.DefaultConfig(busv1.FamilySnapshot)
	c.Credentials = creds
	var waiting atomic.Bool
	c.Log = funcr.New(func(_, args string) {
		if strings.Contains(args, "waiting for the bus to be provisioned") {
			waiting.Store(true)
		}
	}, funcr.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- exporter.Run(ctx, n.JS, c, newBackend("good")) }()
	waitFor(t, "the exporter waiting for the bus", waiting.Load)
	if err := bus.Provision(context.Background(), n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the exporter's consumer in use", func() bool {
		cons, err := n.JS.Consumer(context.Background(), bus.StreamSnapshots, bus.ExporterConsumer(busv1.FamilySnapshot))
		if err != nil {
			return false
		}
		info, err := cons.Info(context.Background())
		return err == nil && info.PushBound || err == nil && info.NumWaiting > 0
	})
	select {
	case err := <-done:
		t.Fatalf("Run returned before it was stopped: %v", err)
	default:
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after stop: %v", err)
	}
}

// deltaThenGap delivers revision 1 in full, revision 2 as a delta on 1, and
// revision 4 with a delta on 3, which the sink "good" never received: it
// must be written in full.
func deltaThenGap(t *testing.T, e *env) {
	t.Helper()
	first := e.publish(1, busv1.ReasonChange, []string{"good"}, "a", "b")
	waitFor(t, "revision 1", func() bool { return e.stored("good") == 1 })
	second := e.event(2, busv1.ReasonChange, []string{"good"}, "a", "c")
	second.Delta = &busv1.Delta{BaseRevision: 1, BaseChecksum: first.Checksum,
		Upserts: []busv1.Row{row("c")}, Deletes: []busv1.RowKey{row("b").Key()}}
	e.send(second)
	waitFor(t, "revision 2", func() bool { return e.stored("good") == 2 })
	fourth := e.event(4, busv1.ReasonChange, []string{"good"}, "d")
	fourth.Delta = &busv1.Delta{BaseRevision: 3, BaseChecksum: "elsewhere", Upserts: []busv1.Row{row("d")}}
	e.send(fourth)
	waitFor(t, "revision 4", func() bool { return e.stored("good") == 4 })
}
