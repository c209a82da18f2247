package control_test

import (
	"fmt"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
)

// targetController is the name controller-runtime gives the Target
// controller in its metrics.
const targetController = "kollecttarget"

// targetMetric sums the values of the Target controller's metric name.
func targetMetric(t testing.TB, name, label string) float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if !hasLabel(m, label, targetController) {
				continue
			}
			switch {
			case m.Counter != nil:
				sum += m.Counter.GetValue()
			case m.Gauge != nil:
				sum += m.Gauge.GetValue()
			}
		}
	}
	return sum
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

// targetsIdle waits, at most within, until the Target controller has nothing queued and
// nothing running.
func targetsIdle(t testing.TB, within time.Duration) {
	t.Helper()
	testenv.Eventually(t, within, "the Target controller is idle", func() error {
		depth := targetMetric(t, "workqueue_depth", "name")
		active := targetMetric(t, "controller_runtime_active_workers", "controller")
		if depth != 0 || active != 0 {
			return fmt.Errorf("%v queued, %v running", depth, active)
		}
		return nil
	})
}

func reconciles(t *testing.T) float64 {
	t.Helper()
	return targetMetric(t, "controller_runtime_reconcile_total", "controller")
}

func TestABindingReviewsOnlyTheTargetsWhoseServiceAccountItNames(t *testing.T) {
	own := namespace(t)
	const teams, perTeam = 3, 10
	var others []string
	for range teams {
		ns := namespace(t)
		others = append(others, ns)
		create(t, profile(ns, "cms", configMaps))
		for i := range perTeam {
			create(t, targetObj(ns, fmt.Sprintf("t%d", i), "cms"))
		}
	}
	create(t, profile(own, "cms", configMaps))
	tg := targetObj(own, "victim", "cms")
	tg.Spec.IncludedNamespaces = []string{own, others[0]}
	create(t, tg)
	for _, ns := range others {
		for i := range perTeam {
			accessOf(t, ns, fmt.Sprintf("t%d", i), busv1.TargetAccess{ServiceAccount: ns + "/kollect", Namespaces: []string{ns}})
		}
	}
	sa := own + "/kollect"
	accessOf(t, own, "victim", busv1.TargetAccess{ServiceAccount: sa, Namespaces: []string{own}})
	targetsIdle(t, 30*time.Second)
	before := reconciles(t)

	// A binding in another team's namespace naming own's ServiceAccount.
	grantView(t, others[0], own, "kollect")
	accessOf(t, own, "victim", busv1.TargetAccess{ServiceAccount: sa, Namespaces: []string{own, others[0]}})
	targetsIdle(t, 30*time.Second)
	// The victim is reconciled again once or twice (its status changes);
	// the other teams' Targets, which the binding does not name, are not.
	// Before F7 every Target in the cluster was.
	if n := reconciles(t) - before; n >= teams*perTeam {
		t.Errorf("%v Target reconciles after one binding naming one ServiceAccount; want fewer than %d", n, teams*perTeam)
	} else {
		t.Logf("%v Target reconciles after one binding naming one ServiceAccount", n)
	}
}
