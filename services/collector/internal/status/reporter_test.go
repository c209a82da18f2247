package status

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

// targets is an in-memory Source.
type targets struct {
	mu      sync.Mutex
	reports map[bus.ConfigRef]busv1.StatusReport
}

func (s *targets) Report(ref bus.ConfigRef) (busv1.StatusReport, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.reports[ref]
	r.ObservedAt = time.Now() // always new: it must not count as a change
	return r, ok
}

func (s *targets) set(ref bus.ConfigRef, collected int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reports[ref] = busv1.StatusReport{Service: busv1.ServiceCollector, Kind: ref.Kind, Namespace: ref.Namespace,
		Name: ref.Name, Generation: 1, Target: &busv1.TargetStatus{CollectedCount: collected, MatchedNamespaces: []string{}}}
}

// next waits for the next report on sub.
func next(t *testing.T, sub *nats.Subscription) busv1.StatusReport {
	t.Helper()
	m, err := sub.NextMsg(20 * time.Second)
	if err != nil {
		t.Fatalf("no status report: %v", err)
	}
	var r busv1.StatusReport
	if err := json.Unmarshal(m.Data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestReporterPublishesChangesAtMostOncePerInterval(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	web := bus.ConfigRef{Kind: busv1.KindTarget, Namespace: "team-a", Name: "web"}
	nodes := bus.ConfigRef{Kind: busv1.KindClusterTarget, Name: "nodes"}
	subWeb, err := n.Conn.SubscribeSync(bus.StatusSubject(bus.StatusAddress{Service: busv1.ServiceCollector, Kind: web.Kind, Namespace: web.Namespace, Name: web.Name}))
	if err != nil {
		t.Fatal(err)
	}
	subNodes, err := n.Conn.SubscribeSync(bus.StatusSubject(bus.StatusAddress{Service: busv1.ServiceCollector, Kind: nodes.Kind, Name: nodes.Name}))
	if err != nil {
		t.Fatal(err)
	}
	src := &targets{reports: map[bus.ConfigRef]busv1.StatusReport{}}
	r := New(n.JS, 10*time.Millisecond, logr.Discard(), nil)
	for i := range 100 {
		src.set(web, i)
		r.Mark(web)
	}
	go func() { _ = r.Run(ctx, src) }()

	t.Run("marks between two intervals publish the latest report once", func(t *testing.T) {
		if got := next(t, subWeb).Target.CollectedCount; got != 99 {
			t.Errorf("published collectedCount %d, want 99", got)
		}
	})
	t.Run("an unchanged report is not published again", func(t *testing.T) {
		r.Mark(web)
		// Reports go out in interval order on one connection: once the
		// nodes report arrived, a second web report would have too.
		waitFlushed(t, r)
		src.set(nodes, 3)
		r.Mark(nodes)
		if got := next(t, subNodes); got.Target.CollectedCount != 3 || got.Name != "nodes" {
			t.Errorf("nodes report = %+v", got)
		}
		if m, err := subWeb.NextMsg(0); err == nil {
			t.Errorf("an unchanged report was published again: %s", m.Data)
		}
	})
	t.Run("a changed report is published with the new content", func(t *testing.T) {
		src.set(web, 100)
		r.Mark(web)
		got := next(t, subWeb)
		got.ObservedAt = time.Time{}
		want := busv1.StatusReport{Service: busv1.ServiceCollector, Kind: busv1.KindTarget, Namespace: "team-a", Name: "web",
			Generation: 1, Target: &busv1.TargetStatus{CollectedCount: 100, MatchedNamespaces: []string{}}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("report (-want +got):\n%s", diff)
		}
	})
}

// waitFlushed waits until no Target is marked, so the interval that took
// the marks has started.
func waitFlushed(t *testing.T, r *Reporter) {
	t.Helper()
	testenv.EventuallyTrue(t, 20*time.Second, "the marks taken", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.dirty) == 0
	}, testenv.Every(5*time.Millisecond))
}
