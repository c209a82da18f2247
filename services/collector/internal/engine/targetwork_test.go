package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/collector/internal/informers"
)

// evaluations is how many times a Target evaluated a Deployment.
func (f *fixture) evaluations() uint64 {
	f.t.Helper()
	h, ok := f.e.cfg.Metrics.ExtractionDuration.WithLabelValues(informers.GVKString(deployments)).(prometheus.Histogram)
	if !ok {
		f.t.Fatal("extraction duration is not a histogram")
	}
	var m dto.Metric
	if err := h.Write(&m); err != nil {
		f.t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}

// A Target added next to others of its kind has only the objects of its own
// namespaces evaluated, and only for itself: a hundred teams' Targets
// arriving one by one cost each object one evaluation, not one per Target
// per arrival (issue 34: the collector's initial sync grew with Targets ×
// objects).
func TestATargetArrivingEvaluatesOnlyItsOwnNamespacesObjects(t *testing.T) {
	namespaces := []string{"team-a", "team-b", "team-c"}
	f := newFixture(t, namespaces...)
	const perNamespace = 40
	for _, ns := range namespaces {
		for i := range perNamespace {
			f.inf.add(deployments, deployment(ns, fmt.Sprintf("app-%02d", i)))
		}
	}
	if err := f.e.Complete(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	for _, ns := range namespaces {
		if err := f.e.Put(context.Background(), config(t, ns, "t1", false)); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 10*time.Second, "rows of "+ns, func() error {
			if n := len(f.rows.names(ns, "t1")); n != perNamespace {
				return fmt.Errorf("%d rows", n)
			}
			return nil
		}, testenv.Every(2*time.Millisecond))
	}
	if got, want := f.evaluations(), uint64(len(namespaces)*perNamespace); got != want {
		t.Errorf("%d evaluations for %d objects of %d Targets each in its own namespace, want %d (one per object)",
			got, want, len(namespaces), want)
	}
}

// A Target whose namespaces change keeps the rows of the objects it now
// selects and loses, in its sweep, the rows of those it no longer does.
func TestATargetMovedToAnotherNamespaceMovesItsRows(t *testing.T) {
	f := newFixture(t, "team-a", "team-b")
	f.inf.add(deployments, deployment("team-a", "web"))
	f.inf.add(deployments, deployment("team-b", "api"))
	if err := f.e.Complete(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	cfg := config(t, "team-a", "t1", false)
	if err := f.e.Put(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	f.inf.sync(deployments)
	f.rowsAre("team-a", "t1", "web")

	moved := config(t, "team-a", "t1", false)
	moved.Generation = 2
	moved.Selection = selectionIn(t, moved.Selection, "team-b")
	if err := f.e.Put(context.Background(), moved); err != nil {
		t.Fatal(err)
	}
	f.rowsAre("team-a", "t1", "api")
}

// selectionIn is a Target's selection JSON with includedNamespaces set to ns.
func selectionIn(t *testing.T, sel json.RawMessage, ns string) json.RawMessage {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(sel, &s); err != nil {
		t.Fatal(err)
	}
	s["includedNamespaces"] = []string{ns}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
