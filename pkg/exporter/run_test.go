package exporter_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/exporter/exportertest"
	"kollect.dev/kollect/pkg/sink"
)

func TestAnEventIsDeliveredAndItsStateAndStatusRecorded(t *testing.T) {
	e := newEnv(t, "good")
	e.start(nil)
	ev := e.publish(1, busv1.ReasonChange, []string{"good"}, "a", "b")
	waitFor(t, "revision 1 in the sink", func() bool { return e.stored("good") == 1 })
	got, _ := e.b.stores["good"].Get("east", inv)
	if got.Checksum != ev.Checksum || len(got.Rows) != 2 {
		t.Fatalf("stored %+v, want checksum %s and 2 rows", got, ev.Checksum)
	}
	var st busv1.ExportState
	waitFor(t, "export state", func() bool {
		return e.last(bus.KVStreamName(bus.BucketExportState), "$KV."+bus.BucketExportState+"."+bus.ExportStateKey(inv, ref("good")), &st)
	})
	if st.Revision != 1 || st.Checksum != ev.Checksum || st.Sink != ref("good") || st.Inventory != inv {
		t.Fatalf("export state %+v", st)
	}
	waitFor(t, "status report", func() bool { return e.status("good") != nil })
	s := e.status("good")
	want := busv1.ExportStatus{Sink: ref("good"), Checksum: ev.Checksum, Revision: 1, OK: true}
	if d := cmp.Diff(want, *s, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "LastExportTime" }, cmp.Ignore())); d != "" {
		t.Fatalf("status (-want +got):\n%s", d)
	}
	waitFor(t, "the message acknowledged", func() bool { return e.ackPending() == 0 })
}

func TestARepeatedEventIsANoOp(t *testing.T) {
	e := newEnv(t, "good")
	e.start(nil)
	e.publish(1, busv1.ReasonChange, []string{"good"}, "a")
	waitFor(t, "revision 1", func() bool { return e.stored("good") == 1 })
	waitFor(t, "revision 1 acknowledged", func() bool { return e.ackPending() == 0 })
	e.publish(1, busv1.ReasonPeriodic, []string{"good"}, "a")
	waitFor(t, "the repeated revision acknowledged", func() bool { return e.ackPending() == 0 })
	if got := e.b.callsOf("good"); !slices.Equal(got, []uint64{1}) {
		t.Fatalf("writes %v, want [1]: the repeated revision 1 was written again", got)
	}
}

func TestAnOlderRevisionAfterANewerOneIsNotApplied(t *testing.T) {
	e := newEnv(t, "good")
	e.start(nil)
	e.publish(5, busv1.ReasonChange, []string{"good"}, "a")
	waitFor(t, "revision 5", func() bool { return e.stored("good") == 5 })
	e.publish(4, busv1.ReasonChange, []string{"good"}, "old")
	e.publish(6, busv1.ReasonChange, []string{"good"}, "b")
	waitFor(t, "revision 6", func() bool { return e.stored("good") == 6 })
	if got := e.b.callsOf("good"); !slices.Equal(got, []uint64{5, 6}) {
		t.Fatalf("writes %v, want [5 6]: revision 4 was applied after 5", got)
	}
}

func TestAPermanentlyFailingSinkIsDeadLetteredAndDoesNotBlockAnother(t *testing.T) {
	e := newEnv(t, "good", "bad")
	e.start(nil)
	both := []string{"good", "bad"}
	e.publish(1, busv1.ReasonChange, both, "a")
	var dl busv1.DeadLetter
	waitFor(t, "a dead letter", func() bool {
		return e.last(bus.StreamDeadLetters, bus.DeadLetterSubject(busv1.FamilySnapshot, inv), &dl)
	})
	if dl.Sink == nil || *dl.Sink != ref("bad") || dl.Revision != 1 || dl.Reason != v1alpha1.ReasonExportRejected ||
		dl.Subject != bus.SnapshotSubject(inv) || dl.StreamSequence == 0 {
		t.Fatalf("dead letter %+v", dl)
	}
	waitFor(t, "a permanent status", func() bool { s := e.status("bad"); return s != nil && s.Permanent })
	e.publish(2, busv1.ReasonChange, both, "b")
	waitFor(t, "revision 2 in the good sink", func() bool { return e.stored("good") == 2 })
	waitFor(t, "both messages acknowledged", func() bool { return e.ackPending() == 0 })
	if e.stored("bad") != 0 {
		t.Fatal("the sink with refused credentials holds data")
	}
}

// A sink whose Secret does not exist fails for good with SecretResolveFailed,
// the reason carried by the credentials' error, in its status and its dead
// letter.
func TestAMissingSecretIsSecretResolveFailed(t *testing.T) {
	e := newEnv(t, "unset")
	e.start(nil)
	e.publish(1, busv1.ReasonChange, []string{"unset"}, "a")
	var dl busv1.DeadLetter
	waitFor(t, "a dead letter", func() bool {
		return e.last(bus.StreamDeadLetters, bus.DeadLetterSubject(busv1.FamilySnapshot, inv), &dl)
	})
	if dl.Reason != v1alpha1.ReasonSecretResolveFailed || !strings.Contains(dl.Message, "team-a/missing") {
		t.Fatalf("dead letter outcome %+v, want SecretResolveFailed naming the Secret", dl.Outcome)
	}
	waitFor(t, "a permanent status", func() bool { s := e.status("unset"); return s != nil && s.Permanent })
	if s := e.status("unset"); s.Reason != v1alpha1.ReasonSecretResolveFailed {
		t.Fatalf("status %+v, want SecretResolveFailed", s)
	}
}

func TestATransientlyFailingSinkIsRetriedWithoutDelayingAnother(t *testing.T) {
	e := newEnv(t, "good", "flaky")
	var down atomic.Bool
	down.Store(true)
	e.b.stores["flaky"].FailWith(func(sink.Snapshot) error {
		if down.Load() {
			return errors.New("connection refused")
		}
		return nil
	})
	e.start(nil)
	e.publish(1, busv1.ReasonChange, []string{"good", "flaky"}, "a")
	waitFor(t, "revision 1 in the good sink", func() bool { return e.stored("good") == 1 })
	waitFor(t, "retries of the flaky sink", func() bool { return len(e.b.callsOf("flaky")) >= 3 })
	if s := e.status("flaky"); s == nil || s.OK || s.Permanent || s.Reason != v1alpha1.ReasonExportFailed {
		t.Fatalf("status of the failing sink %+v, want a transient failure", s)
	}
	if e.ackPending() == 0 {
		t.Fatal("the message was acknowledged while a binding still retries")
	}
	down.Store(false)
	waitFor(t, "revision 1 in the flaky sink", func() bool { return e.stored("flaky") == 1 })
	waitFor(t, "an OK status", func() bool { s := e.status("flaky"); return s != nil && s.OK && s.Revision == 1 })
	waitFor(t, "the message acknowledged", func() bool { return e.ackPending() == 0 })
}

// Two replicas share the consumer and race on one inventory's backlog, with
// periodic duplicates of some revisions: each binding applies every revision
// at most once and in increasing order, and converges to the last; thanks
// to the binding's claim in the export state the sink is not even asked for
// a revision another replica wrote or is writing.
func TestTwoRuntimesOnOneConsumerApplyEachRevisionOncePerBinding(t *testing.T) {
	e := newEnv(t, "good", "other")
	e.start(nil)
	e.start(nil)
	both := []string{"good", "other"}
	const last = 30
	for rev := uint64(1); rev <= last; rev++ {
		e.publish(rev, busv1.ReasonChange, both, "a")
		if rev%3 == 0 {
			e.publish(rev, busv1.ReasonPeriodic, both, "a")
		}
	}
	for _, s := range both {
		waitFor(t, s+" at the last revision", func() bool { return e.stored(s) == last })
		var prev uint64
		for _, w := range e.b.stores[s].Writes() {
			if w.Revision <= prev {
				t.Fatalf("%s: revision %d applied after %d", s, w.Revision, prev)
			}
			prev = w.Revision
		}
		// The binding's claim serialises the replicas: the sink is never
		// even asked for a revision that is not newer than the last one
		// written.
		prev = 0
		for _, rev := range e.b.callsOf(s) {
			if rev <= prev {
				t.Fatalf("%s: asked to write revision %d after %d (calls %v)", s, rev, prev, e.b.callsOf(s))
			}
			prev = rev
		}
	}
	waitFor(t, "every message acknowledged", func() bool { return e.ackPending() == 0 })
}

func TestConnectionTestsAreAnswered(t *testing.T) {
	e := newEnv(t, "good", "bad", "unset")
	e.start(nil)
	for _, tc := range []struct {
		name string
		req  busv1.ConnectionTestRequest
		want busv1.ConnectionTestReply
	}{
		{"a reachable sink is OK", busv1.ConnectionTestRequest{RequestID: "1", Sink: ref("good"), SinkGeneration: 1},
			busv1.ConnectionTestReply{RequestID: "1", OK: true}},
		{"refused credentials are permanent", busv1.ConnectionTestRequest{RequestID: "2", Sink: ref("bad"), SinkGeneration: 1},
			busv1.ConnectionTestReply{RequestID: "2", Permanent: true, Outcome: busv1.Outcome{Reason: v1alpha1.ReasonConnectionTestFailed}}},
		{"a missing Secret is SecretResolveFailed", busv1.ConnectionTestRequest{RequestID: "4", Sink: ref("unset"), SinkGeneration: 1},
			busv1.ConnectionTestReply{RequestID: "4", Permanent: true, Outcome: busv1.Outcome{Reason: v1alpha1.ReasonSecretResolveFailed}}},
		{"an unseen generation is asked again", busv1.ConnectionTestRequest{RequestID: "3", Sink: ref("good"), SinkGeneration: 2},
			busv1.ConnectionTestReply{RequestID: "3", Outcome: busv1.Outcome{Reason: v1alpha1.ReasonSinkConfigPending}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := json.Marshal(tc.req)
			var m *nats.Msg
			waitFor(t, "a reply", func() bool {
				var err error
				m, err = e.n.Conn.Request(bus.ConnTestSubject(busv1.FamilySnapshot), b, 10*time.Second)
				if err != nil && !errors.Is(err, nats.ErrNoResponders) {
					t.Fatal(err)
				}
				return err == nil
			})
			var got busv1.ConnectionTestReply
			if err := json.Unmarshal(m.Data, &got); err != nil {
				t.Fatal(err)
			}
			got.LatencyMs, got.Message = 0, ""
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("reply (-want +got):\n%s", d)
			}
		})
	}
}

// A connection test of a sink naming another namespace's Secret is refused
// with SecretRefDenied: the backend is not asked to build it and no Secret
// is read, so the reply says nothing about that Secret.
func TestAConnectionTestOfACrossNamespaceSecretRefReadsNothing(t *testing.T) {
	e := newEnv(t)
	spec, _ := json.Marshal(map[string]any{"secretRef": map[string]string{"namespace": "team-b", "name": "other"}})
	e.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindSnapshotSink, Namespace: "team-a", Name: "cross"}),
		busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "memory", Namespace: "team-a", Name: "cross", Generation: 1, Spec: spec})
	log := &exportertest.ReadLog{MapCredentials: backend.MapCredentials{
		{Namespace: "team-b", Name: "other"}: {"token": []byte("team-b-token")},
	}}
	e.start(func(c *exporter.Config) { c.Credentials = log })
	b, _ := json.Marshal(busv1.ConnectionTestRequest{RequestID: "1", Sink: ref("cross"), SinkGeneration: 1})
	var m *nats.Msg
	waitFor(t, "a reply", func() bool {
		var err error
		m, err = e.n.Conn.Request(bus.ConnTestSubject(busv1.FamilySnapshot), b, 10*time.Second)
		if err != nil && !errors.Is(err, nats.ErrNoResponders) {
			t.Fatal(err)
		}
		return err == nil
	})
	var got busv1.ConnectionTestReply
	if err := json.Unmarshal(m.Data, &got); err != nil {
		t.Fatal(err)
	}
	if got.OK || !got.Permanent || got.Reason != v1alpha1.ReasonSecretRefDenied {
		t.Fatalf("reply %+v, want a permanent SecretRefDenied", got)
	}
	if n, builds := len(log.Reads()), e.b.buildsOf("cross"); n != 0 || builds != 0 {
		t.Fatalf("%d Secret reads and %d builds, want none", n, builds)
	}
}
