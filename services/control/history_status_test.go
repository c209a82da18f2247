package control_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// The aggregator's report of the history it kept after its last trim is
// status.history of both inventory kinds.
func TestInventoryStatusShowsTheRetainedHistory(t *testing.T) {
	ns := namespace(t)
	oldest := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	kept := &busv1.HistoryStatus{Revisions: 3, OldestRevision: 5, OldestTime: oldest, Bytes: 123456}
	want := &v1alpha1.HistoryStatus{Revisions: 3, OldestRevision: 5, OldestTime: &metav1.Time{Time: oldest}, Bytes: 123456}
	same := func(got *v1alpha1.HistoryStatus) error {
		if got == nil || got.OldestTime == nil || !got.OldestTime.Equal(want.OldestTime) {
			return fmt.Errorf("status.history = %+v, want %+v", got, want)
		}
		g, w := *got, *want
		g.OldestTime, w.OldestTime = nil, nil
		if d := cmp.Diff(w, g); d != "" {
			return fmt.Errorf("status.history (-want +got):\n%s", d)
		}
		return nil
	}

	t.Run("KollectInventory", func(t *testing.T) {
		create(t, gitSink(ns, "git-a"))
		inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "kept"},
			Spec: v1alpha1.KollectInventorySpec{SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "git-a"}}}}
		create(t, inv)
		eventually(t, "Synced unknown", func() error {
			return hasCondition(t, inv, func() []metav1.Condition { return inv.Status.Conditions },
				v1alpha1.ConditionSynced, metav1.ConditionUnknown, v1alpha1.ReasonProgressing)
		})
		publish(t, busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindInventory, Namespace: ns, Name: "kept",
			Generation: 1, Inventory: &busv1.InventoryStatus{ItemCount: 4, Revision: 7, Checksum: "abc", History: kept}})
		eventually(t, "status.history", func() error {
			if err := get(t, inv); err != nil {
				return err
			}
			return same(inv.Status.History)
		})
	})

	t.Run("KollectClusterInventory", func(t *testing.T) {
		ci := &v1alpha1.KollectClusterInventory{ObjectMeta: metav1.ObjectMeta{Name: ns + "-kept"},
			Spec: v1alpha1.KollectClusterInventorySpec{TargetRefs: []string{ns + "-cms"}, SinkNamespace: ns}}
		create(t, ci)
		eventually(t, "cluster inventory entry", func() error {
			var cfg busv1.InventoryConfig
			return configEntry(t, ref(busv1.KindClusterInventory, "", ci.Name), &cfg)
		})
		publish(t, busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindClusterInventory, Name: ci.Name,
			Generation: 1, Inventory: &busv1.InventoryStatus{ItemCount: 4, Revision: 7, Checksum: "abc", History: kept}})
		eventually(t, "status.history", func() error {
			if err := get(t, ci); err != nil {
				return err
			}
			return same(ci.Status.History)
		})
	})
}
