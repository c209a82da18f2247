package exporter_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

// putState writes a binding's export state as another replica would.
func (e *env) putState(s string, st busv1.ExportState) {
	e.t.Helper()
	kv, err := e.n.JS.KeyValue(context.Background(), bus.BucketExportState)
	if err != nil {
		e.t.Fatal(err)
	}
	b, _ := json.Marshal(st)
	if _, err := kv.Put(context.Background(), bus.ExportStateKey(inv, ref(s)), b); err != nil {
		e.t.Fatal(err)
	}
}

// state reads a binding's export state.
func (e *env) state(s string) busv1.ExportState {
	e.t.Helper()
	st, _ := e.stateAt(s)
	return st
}

// stateAt reads a binding's export state and its KV revision.
func (e *env) stateAt(s string) (busv1.ExportState, uint64) {
	e.t.Helper()
	kv, err := e.n.JS.KeyValue(context.Background(), bus.BucketExportState)
	if err != nil {
		e.t.Fatal(err)
	}
	v, err := kv.Get(context.Background(), bus.ExportStateKey(inv, ref(s)))
	if err != nil {
		e.t.Fatal(err)
	}
	var st busv1.ExportState
	if err := json.Unmarshal(v.Value(), &st); err != nil {
		e.t.Fatal(err)
	}
	return st, v.Revision()
}

func TestAnExpiredClaimOfAVanishedReplicaIsTakenOver(t *testing.T) {
	e := newEnv(t, "good")
	e.putState("good", busv1.ExportState{Inventory: inv, Sink: ref("good"),
		Claim: &busv1.ExportClaim{Owner: "crashed-replica", Revision: 1, Expires: time.Now().Add(-time.Second)}})
	e.start(nil)
	e.publish(1, busv1.ReasonChange, []string{"good"}, "a")
	waitFor(t, "revision 1 written", func() bool { return e.stored("good") == 1 })
	waitFor(t, "the state recorded without a claim", func() bool {
		st := e.state("good")
		return st.Revision == 1 && st.Claim == nil
	})
}

func TestALiveClaimOfAnotherReplicaDefersTheWriteUntilItEnds(t *testing.T) {
	e := newEnv(t, "good")
	held := busv1.ExportState{Inventory: inv, Sink: ref("good"),
		Claim: &busv1.ExportClaim{Owner: "other-replica", Revision: 2, Expires: time.Now().Add(time.Hour)}}
	e.putState("good", held)
	e.start(nil)
	e.publish(1, busv1.ReasonChange, []string{"good"}, "a")
	// The other replica finishes revision 1 and releases its claim: the
	// waiting runtime then sees the revision delivered and skips it.
	ev := e.event(1, busv1.ReasonChange, []string{"good"}, "a")
	waitFor(t, "the event waiting on the claim", func() bool { return e.ackPending() == 1 })
	e.putState("good", busv1.ExportState{Inventory: inv, Sink: ref("good"), Revision: 1, Checksum: ev.Checksum, ExportedAt: time.Now()})
	waitFor(t, "the event acknowledged", func() bool { return e.ackPending() == 0 })
	if calls := e.b.callsOf("good"); len(calls) != 0 {
		t.Fatalf("the runtime wrote %v although the other replica held the binding", calls)
	}
}

// stopAfterWrite builds the backend's sinks so that a write, once the sink
// holds it, stops the exporter runtime, as a rolling update can at any time.
type stopAfterWrite struct {
	*memBackend
	stop context.CancelFunc
}

func (b stopAfterWrite) New(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (sink.Sink, error) {
	s, err := b.memBackend.New(ctx, cfg, creds)
	if err != nil {
		return nil, err
	}
	return stoppingSink{s.(*counting), b.stop}, nil
}

type stoppingSink struct {
	*counting
	stop context.CancelFunc
}

func (s stoppingSink) Write(ctx context.Context, snap sink.Snapshot) error {
	err := s.counting.Write(ctx, snap)
	s.stop()
	return err
}

// A replica stopped between its sink's write and recording it still records
// the write and drops its claim: the next replica neither waits the claim's
// TTL out nor writes the revision again.
func TestAReplicaStoppedRightAfterAWriteRecordsItAndLeavesNoClaim(t *testing.T) {
	e := newEnv(t, "good")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := exporter.DefaultConfig(busv1.FamilySnapshot)
	cfg.Credentials = creds
	done := make(chan error, 1)
	go func() { done <- exporter.Run(ctx, e.n.JS, cfg, stopAfterWrite{e.b, cancel}) }()
	e.publish(1, busv1.ReasonChange, []string{"good"}, "a")
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exporter: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the exporter did not stop after its write")
	}
	if st := e.state("good"); st.Revision != 1 || st.Claim != nil {
		t.Fatalf("export state after the stop: revision %d, claim %+v; want revision 1 and no claim", st.Revision, st.Claim)
	}
}
