package control_test

import (
	"fmt"
	"testing"

	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
)

func TestEventsOnlyOnTransitions(t *testing.T) {
	ns := namespace(t)
	tg := targetObj(ns, "cms", "missing")
	create(t, tg)
	conds := func() []metav1.Condition { return tg.Status.Conditions }
	eventually(t, "ProfileNotFound", func() error {
		return hasCondition(t, tg, conds, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonProfileNotFound)
	})
	// A spec change reconciles again without changing the condition.
	eventually(t, "spec change", func() error {
		if err := get(t, tg); err != nil {
			return err
		}
		tg.Spec.Names = []string{"x"}
		return shared.kube.Client.Update(t.Context(), tg)
	})
	eventually(t, "generation 2 observed", func() error {
		if err := get(t, tg); err != nil {
			return err
		}
		if tg.Status.ObservedGeneration != 2 {
			return fmt.Errorf("observedGeneration %d", tg.Status.ObservedGeneration)
		}
		return nil
	})
	eventually(t, "one ProfileNotFound event", func() error {
		var list eventsv1.EventList
		if err := shared.kube.Client.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
			return err
		}
		var n int32
		for _, e := range list.Items {
			if e.Regarding.Name == "cms" && e.Reason == v1alpha1.ReasonProfileNotFound {
				n++
				if e.Series != nil {
					n += e.Series.Count - 1
				}
			}
		}
		if n != 1 {
			return fmt.Errorf("%d ProfileNotFound events, want 1", n)
		}
		return nil
	})
}

// The Events of a cluster-scoped object go to the release namespace, not
// to "default", where anyone with view would read platform sink names and
// export errors (SECURITY-3 F17).
func TestEventsOfClusterScopedObjectsGoToTheReleaseNamespace(t *testing.T) {
	platform := namespace(t)
	ci := &v1alpha1.KollectClusterInventory{ObjectMeta: metav1.ObjectMeta{Name: platform + "-inv"},
		Spec: v1alpha1.KollectClusterInventorySpec{SinkNamespace: platform, TargetRefs: []string{"missing"},
			SnapshotSinkRefs: []v1alpha1.ClusterSinkBinding{{Name: "missing-sink"}}}}
	create(t, ci)
	count := func(ns string) (int, error) {
		var list eventsv1.EventList
		if err := shared.kube.Client.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
			return 0, err
		}
		n := 0
		for _, e := range list.Items {
			if e.Regarding.Kind == "KollectClusterInventory" && e.Regarding.Name == ci.Name && e.Regarding.UID == ci.UID {
				n++
			}
		}
		return n, nil
	}
	eventually(t, "an event of the cluster inventory in the release namespace", func() error {
		n, err := count(releaseNamespace)
		if err != nil || n == 0 {
			return fmt.Errorf("%d events in %s: %v", n, releaseNamespace, err)
		}
		return nil
	})
	if n, err := count(metav1.NamespaceDefault); err != nil || n != 0 {
		t.Fatalf("%d events of the cluster inventory in default (%v), want none", n, err)
	}
}
