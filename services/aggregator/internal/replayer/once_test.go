package replayer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/aggregator/internal/replayer"
	"kollect.dev/kollect/services/control"
)

// lines is a logger whose lines a test can wait for.
type lines struct {
	mu  sync.Mutex
	all []string
}

func (l *lines) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.all = append(l.all, prefix+" "+args)
	}, funcr.Options{Verbosity: 1})
}

func (l *lines) count(needle string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.all {
		if strings.Contains(s, needle) {
			n++
		}
	}
	return n
}

// startReplayer runs a replayer on b's bus until stop, which waits until
// it returned (an aggregator stepping down or restarting).
func (b *bed) startReplayer(log logr.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- replayer.New(b.js, replayer.Options{AckTimeout: 10 * time.Second, ReportRetryMax: time.Second, Log: log}).Run(ctx)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				b.t.Errorf("replayer: %v", err)
			}
		})
	}
	b.t.Cleanup(stop)
	return stop
}

// TestAReplayWhoseReportCannotBeReadDoesNotRunAgain: a replayer that
// cannot read a request's last report (here its stream is gone) waits
// until it can instead of running the replay, which may have finished
// (F9 of SECURITY-3). Seen failing before the fix: the restarted replayer
// delivered revision 1 again at once.
func TestAReplayWhoseReportCannotBeReadDoesNotRunAgain(t *testing.T) {
	b := newBus(t, "memory", true)
	b.publish(2)
	stop := b.startReplayer(logr.Discard())
	if st := b.replay("once", func(r *busv1.ReplayRequest) { r.Revision = 1 }); st.Phase != busv1.ReplaySucceeded {
		t.Fatalf("replay: %+v", st)
	}
	stop()
	if err := b.js.DeleteStream(t.Context(), bus.StreamStatus); err != nil {
		t.Fatal(err)
	}
	var log lines
	b.startReplayer(log.logger())
	testenv.EventuallyTrue(t, 30*time.Second, "the restarted replayer to fail reading the report twice", func() bool {
		return log.count("read the replay's last report") >= 2
	})
	if diff := cmp.Diff([]uint64{1}, b.freshWrites()); diff != "" {
		t.Errorf("writes to the fresh sink (-want +got):\n%s", diff)
	}
}

// TestAFinishedReplayNeverRunsAgain runs control on an API server and the
// bus, with the replayer and the snapshot exporter runtime: a replay
// finishes, its report then expires (is purged) and the aggregator's
// replayer restarts; the replay is not delivered again, and stays
// Succeeded. A second replay of the same sink created afterwards shows the
// restarted replayer works (and would have delivered after a re-run of the
// first, which holds the binding). F9 of SECURITY-3; seen failing before
// the fix with writes [2 2 3].
func TestAFinishedReplayNeverRunsAgain(t *testing.T) {
	ctrl.SetLogger(logr.Discard())
	b := newBus(t, "git", false)
	kube := testenv.StartKube(t)
	c := control.DefaultConfig()
	c.Kube.Rest, c.Bus.URL, c.ProvisionBus = kube.Config, b.nats.URL, false
	c.Metrics.BindAddress, c.Metrics.HealthProbeBindAddress = "0", "0"
	c.Leader.Enabled, c.Webhook.Port = false, 0
	c.BusCheckInterval, c.Log = time.Hour, logr.Discard()
	c.VerifyRequesters = false // no webhook records requesters here (F6 has its own tests)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- control.Run(ctx, c) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && ctx.Err() == nil {
			t.Errorf("control: %v", err)
		}
	})
	k := kube.Client
	mk := func(obj client.Object) {
		t.Helper()
		if err := k.Create(t.Context(), obj); err != nil {
			t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
		}
	}
	mk(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}})
	// A replay runs as the namespace's ServiceAccount, which may get
	// the inventory (SECURITY-3 F14), as docs/replay.md tells teams.
	mk(&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "replay"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{v1alpha1.GroupVersion.Group}, Resources: []string{"kollectinventories"}, Verbs: []string{"get"}}}})
	mk(&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "replay"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "replay"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "team-a", Name: "kollect"}}})
	for _, s := range []string{"live", "fresh"} {
		mk(&v1alpha1.KollectSnapshotSink{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: s},
			Spec: v1alpha1.KollectSnapshotSinkSpec{Type: "git", Endpoint: "https://git.example.com/" + s + ".git"}})
	}
	mk(&v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "apps"},
		Spec: v1alpha1.KollectInventorySpec{SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "live"}, {Name: "fresh"}}}})
	kv, err := b.js.KeyValue(t.Context(), bus.BucketConfig)
	if err != nil {
		t.Fatal(err)
	}
	testenv.EventuallyTrue(t, 30*time.Second, "control to compile the inventory with both bindings", func() bool {
		_, err1 := kv.Get(t.Context(), bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindSnapshotSink, Namespace: "team-a", Name: "fresh"}))
		e, err2 := kv.Get(t.Context(), bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindInventory, Namespace: "team-a", Name: "apps"}))
		return err1 == nil && err2 == nil && strings.Contains(string(e.Value()), "fresh")
	})
	b.publish(3)
	stop := b.startReplayer(logr.Discard())

	replay := func(name string, rev int64) *v1alpha1.KollectReplay {
		t.Helper()
		rp := &v1alpha1.KollectReplay{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name},
			Spec: v1alpha1.KollectReplaySpec{InventoryRef: v1alpha1.ReplayInventoryRef{Name: "apps"}, Sink: "snapshot/fresh",
				Revision: ptr.To(rev)}}
		mk(rp)
		testenv.Eventually(t, 30*time.Second, "replay "+name+" to succeed", func() error {
			if err := k.Get(t.Context(), client.ObjectKeyFromObject(rp), rp); err != nil {
				return err
			}
			if rp.Status.Phase != v1alpha1.ReplaySucceeded {
				return fmt.Errorf("phase %q, conditions %v", rp.Status.Phase, rp.Status.Conditions)
			}
			return nil
		})
		return rp
	}
	once := replay("once", 2)
	if diff := cmp.Diff([]uint64{2}, b.freshWrites()); diff != "" {
		t.Fatalf("writes to the fresh sink (-want +got):\n%s", diff)
	}

	// Control has recorded the outcome (long before the report expires).
	onceKey := bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindReplay, Namespace: "team-a", Name: "once"})
	if err := testenv.Poll(t.Context(), 10*time.Second, func() error {
		if _, err := kv.Get(t.Context(), onceKey); !errors.Is(err, jetstream.ErrKeyNotFound) {
			return fmt.Errorf("the request is still in the config bucket (%v)", err)
		}
		return nil
	}); err != nil {
		t.Errorf("finished replay once: %v", err)
	}
	// The report expires; the aggregator restarts (a failover, an upgrade).
	s, err := b.js.Stream(t.Context(), bus.StreamStatus)
	if err != nil {
		t.Fatal(err)
	}
	subject := bus.StatusSubject(bus.StatusAddress{Service: busv1.ServiceAggregator, Kind: busv1.KindReplay, Namespace: "team-a", Name: "once"})
	if err := s.Purge(t.Context(), jetstream.WithPurgeSubject(subject)); err != nil {
		t.Fatal(err)
	}
	stop()
	b.startReplayer(logr.Discard())
	replay("later", 3)
	if diff := cmp.Diff([]uint64{2, 3}, b.freshWrites()); diff != "" {
		t.Errorf("writes to the fresh sink (-want +got):\n%s", diff)
	}
	again := &v1alpha1.KollectReplay{}
	if err := k.Get(t.Context(), client.ObjectKeyFromObject(once), again); err != nil {
		t.Fatal(err)
	}
	if again.Status.Phase != v1alpha1.ReplaySucceeded || !cmp.Equal(again.Status.CompletionTime, once.Status.CompletionTime) {
		t.Errorf("the finished replay's status moved: %+v, was %+v", again.Status, once.Status)
	}
}

// TestAReplayReportsRunningBeforeItReadsTheHistory: the first report is
// Running without a revision count, published before the history is read,
// so that a replay that crashes its aggregator while reading shows as
// Running, not Pending (F2 of SECURITY-3). Seen failing before: the first
// report came after the selection, with its count.
func TestAReplayReportsRunningBeforeItReadsTheHistory(t *testing.T) {
	b := newBus(t, "memory", true)
	b.publish(2)
	subject := bus.StatusSubject(bus.StatusAddress{Service: busv1.ServiceAggregator, Kind: busv1.KindReplay, Namespace: "team-a", Name: "watched"})
	sub, err := b.nats.Conn.SubscribeSync(subject)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.nats.Conn.Flush(); err != nil {
		t.Fatal(err)
	}
	b.startReplayer(logr.Discard())
	if st := b.replay("watched", func(r *busv1.ReplayRequest) { r.Revision = 2 }); st.Phase != busv1.ReplaySucceeded {
		t.Fatalf("replay: %+v", st)
	}
	m, err := sub.NextMsg(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var r busv1.StatusReport
	if err := json.Unmarshal(m.Data, &r); err != nil || r.Replay == nil {
		t.Fatalf("report %s: %v", m.Data, err)
	}
	if st := *r.Replay; st.Phase != busv1.ReplayRunning || st.RevisionsTotal != 0 || st.StartedAt.IsZero() {
		t.Errorf("first report %+v, want Running with a start time and no count yet", st)
	}
}

// TestAReplayOfUnknownOutcomeFailsInsteadOfRunningAgain: a request still
// in the config bucket (control has not stored its outcome) whose report
// expired may have finished: the restarted replayer fails it, naming why,
// and delivers nothing (F9 of SECURITY-3). Seen failing before: revision 1
// was delivered again and the replay succeeded a second time.
func TestAReplayOfUnknownOutcomeFailsInsteadOfRunningAgain(t *testing.T) {
	opts := bus.DefaultOptions()
	opts.StatusMaxAge = 2 * time.Second
	b := newBusWith(t, "memory", true, opts)
	b.publish(2)
	stop := b.startReplayer(logr.Discard())
	if st := b.replay("old", func(r *busv1.ReplayRequest) { r.Revision = 1 }); st.Phase != busv1.ReplaySucceeded {
		t.Fatalf("replay: %+v", st)
	}
	stop()
	s, err := b.js.Stream(t.Context(), bus.StreamStatus)
	if err != nil {
		t.Fatal(err)
	}
	subject := bus.StatusSubject(bus.StatusAddress{Service: busv1.ServiceAggregator, Kind: busv1.KindReplay, Namespace: "team-a", Name: "old"})
	testenv.EventuallyTrue(t, 30*time.Second, "the report to expire", func() bool {
		_, err := s.GetLastMsgForSubject(t.Context(), subject)
		return errors.Is(err, jetstream.ErrMsgNotFound)
	})
	b.startReplayer(logr.Discard())
	var st busv1.ReplayStatus
	testenv.EventuallyTrue(t, 30*time.Second, "a new report", func() bool {
		m, err := s.GetLastMsgForSubject(t.Context(), subject)
		if err != nil {
			return false
		}
		var r busv1.StatusReport
		if err := json.Unmarshal(m.Data, &r); err != nil || r.Replay == nil {
			t.Fatalf("report %s: %v", m.Data, err)
		}
		st = *r.Replay
		return st.Phase == busv1.ReplaySucceeded || st.Phase == busv1.ReplayFailed
	})
	if st.Phase != busv1.ReplayFailed || st.Reason != v1alpha1.ReasonReplayFailed ||
		!strings.HasPrefix(st.Message, "the outcome of this replay is unknown: its request was written ") {
		t.Errorf("report %+v, want Failed with an unknown outcome", st)
	}
	if diff := cmp.Diff([]uint64{1}, b.freshWrites()); diff != "" {
		t.Errorf("writes to the fresh sink (-want +got):\n%s", diff)
	}
}
