package control_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

func TestADriftRepairIsAWarningEventOnTheInventory(t *testing.T) {
	ns := namespace(t)
	create(t, gitSink(ns, "git-a"))
	inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"},
		Spec: v1alpha1.KollectInventorySpec{SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "git-a"}}}}
	create(t, inv)
	conds := func() []metav1.Condition { return inv.Status.Conditions }
	eventually(t, "Synced unknown", func() error {
		return hasCondition(t, inv, conds, v1alpha1.ConditionSynced, metav1.ConditionUnknown, v1alpha1.ReasonProgressing)
	})
	report := func(at time.Time, repaired string) busv1.StatusReport {
		return busv1.StatusReport{Service: busv1.ServiceSnapshotExporter, Kind: busv1.KindInventory, Namespace: ns,
			Name: "inv", Generation: 1, ObservedAt: at, Export: &busv1.ExportStatus{
				Sink:           busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: ns, Name: "git-a"},
				LastExportTime: at, Checksum: "abc", Revision: 4, OK: true, Repaired: repaired}}
	}
	repairs := func() ([]eventsv1.Event, error) {
		var list eventsv1.EventList
		if err := shared.kube.Client.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
			return nil, err
		}
		var out []eventsv1.Event
		for _, e := range list.Items {
			if e.Regarding.Name == "inv" && e.Reason == v1alpha1.ReasonDriftRepaired {
				out = append(out, e)
			}
		}
		return out, nil
	}
	first := time.Now().UTC().Truncate(time.Second)
	publish(t, report(first, "file deployments/a.yaml missing"))
	eventually(t, "a DriftRepaired event", func() error {
		evs, err := repairs()
		if err != nil {
			return err
		}
		if len(evs) != 1 {
			return fmt.Errorf("%d DriftRepaired events, want 1", len(evs))
		}
		e := evs[0]
		if e.Type != corev1.EventTypeWarning || !strings.Contains(e.Note, "snapshot/git-a") || !strings.Contains(e.Note, "file deployments/a.yaml missing") {
			return fmt.Errorf("event %s %q, want a Warning naming the binding and the drift", e.Type, e.Note)
		}
		return nil
	})
	// A later export without a repair, then a second repair: one more event.
	publish(t, report(first.Add(time.Minute), ""))
	publish(t, report(first.Add(2*time.Minute), "state row missing"))
	eventually(t, "a second DriftRepaired event", func() error {
		evs, err := repairs()
		if err != nil {
			return err
		}
		if len(evs) != 2 {
			return fmt.Errorf("%d DriftRepaired events, want 2", len(evs))
		}
		return nil
	})
}
