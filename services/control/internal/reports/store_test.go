package reports_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/control/internal/reports"
)

func TestStoreKeepsTheLatestReportPerSubject(t *testing.T) {
	n := testenv.StartNATS(t)
	if err := bus.Provision(t.Context(), n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	send := func(r busv1.StatusReport) {
		data, _ := json.Marshal(r)
		if _, err := n.JS.Publish(t.Context(), bus.StatusSubjectFor(r), data); err != nil {
			t.Fatal(err)
		}
	}
	report := func(count int) busv1.StatusReport {
		return busv1.StatusReport{Service: busv1.ServiceCollector, Kind: busv1.KindTarget, Namespace: "team", Name: "pods",
			Generation: 1, Target: &busv1.TargetStatus{CollectedCount: count}}
	}
	send(report(1)) // published before the store starts: read back as the subject's latest
	s := reports.New(n.JS, logr.Discard(), func(busv1.Kind) client.Object { return &v1alpha1.KollectTarget{} })
	events := s.Events(busv1.KindTarget)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	//nolint:errcheck // waits for the store to end; its error is not what this cleanup checks
	defer func() { cancel(); <-done }()
	key := reports.ObjectKey{Kind: busv1.KindTarget, Namespace: "team", Name: "pods"}
	wait := func(want int) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case e := <-events:
				if e.Object.GetName() != "pods" || e.Object.GetNamespace() != "team" {
					t.Fatalf("event names %s/%s", e.Object.GetNamespace(), e.Object.GetName())
				}
				got := s.Reports(key)
				if len(got) == 1 && got[0].Target.CollectedCount == want {
					return
				}
			case <-deadline:
				t.Fatalf("no report with count %d; have %+v", want, s.Reports(key))
			}
		}
	}
	wait(1)
	send(report(2))
	wait(2)
}
