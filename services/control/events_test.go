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
