package control_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

func collectorReport(ns, name string, gen int64, st busv1.TargetStatus) busv1.StatusReport {
	return busv1.StatusReport{Service: busv1.ServiceCollector, Kind: busv1.KindTarget, Namespace: ns, Name: name,
		Generation: gen, ObservedAt: time.Now(), Target: &st}
}

func TestTargetStatusFolding(t *testing.T) {
	ns := namespace(t)
	create(t, profile(ns, "cms", configMaps))
	tg := targetObj(ns, "cms", "cms")
	create(t, tg)
	conds := func() []metav1.Condition { return tg.Status.Conditions }
	eventually(t, "waiting for the collector", func() error {
		return hasCondition(t, tg, conds, v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonProgressing)
	})
	t.Run("a collector report sets counts and Ready", func(t *testing.T) {
		publish(t, collectorReport(ns, "cms", 1, busv1.TargetStatus{CollectedCount: 3, MatchedNamespaces: []string{ns}}))
		eventually(t, "folded", func() error {
			if err := hasCondition(t, tg, conds, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonSucceeded); err != nil {
				return err
			}
			if tg.Status.CollectedCount != 3 || !cmp.Equal(tg.Status.MatchedNamespaces, []string{ns}) {
				return fmt.Errorf("status = %+v", tg.Status)
			}
			return nil
		})
	})
	t.Run("extraction failures degrade the target", func(t *testing.T) {
		publish(t, collectorReport(ns, "cms", 1, busv1.TargetStatus{CollectedCount: 2, ExtractionFailures: 1,
			LastExtractionError: "ConfigMap x: attribute name: not found", MatchedNamespaces: []string{ns}}))
		eventually(t, "degraded", func() error {
			if err := hasCondition(t, tg, conds, v1alpha1.ConditionDegraded, metav1.ConditionTrue, v1alpha1.ReasonExtractionFailed); err != nil {
				return err
			}
			if tg.Status.ExtractionFailures != 1 || tg.Status.LastExtractionError == "" {
				return fmt.Errorf("status = %+v", tg.Status)
			}
			return nil
		})
	})
	t.Run("a report for an older generation is ignored", func(t *testing.T) {
		eventually(t, "spec change", func() error {
			if err := get(t, tg); err != nil {
				return err
			}
			tg.Spec.Names = []string{"only-this"}
			return shared.kube.Client.Update(t.Context(), tg)
		})
		publish(t, collectorReport(ns, "cms", 1, busv1.TargetStatus{CollectedCount: 99, MatchedNamespaces: []string{ns}}))
		eventually(t, "progressing at generation 2", func() error {
			return hasCondition(t, tg, conds, v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonProgressing)
		})
		publish(t, collectorReport(ns, "cms", 2, busv1.TargetStatus{CollectedCount: 1, MatchedNamespaces: []string{ns}}))
		eventually(t, "generation 2 folded", func() error {
			if err := hasCondition(t, tg, conds, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonSucceeded); err != nil {
				return err
			}
			if tg.Status.CollectedCount != 1 {
				return fmt.Errorf("collectedCount = %d, want 1 (the stale report said 99)", tg.Status.CollectedCount)
			}
			return nil
		})
	})
}

func TestInventoryStatusFolding(t *testing.T) {
	ns := namespace(t)
	create(t, gitSink(ns, "git-a"))
	create(t, gitSink(ns, "git-b"))
	inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"},
		Spec: v1alpha1.KollectInventorySpec{SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "git-a"}, {Name: "git-b"}}}}
	create(t, inv)
	conds := func() []metav1.Condition { return inv.Status.Conditions }
	eventually(t, "Synced unknown", func() error {
		return hasCondition(t, inv, conds, v1alpha1.ConditionSynced, metav1.ConditionUnknown, v1alpha1.ReasonProgressing)
	})
	exported := time.Now().UTC().Truncate(time.Second)
	report := func(sink string, ok bool) busv1.StatusReport {
		e := &busv1.ExportStatus{Sink: busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: ns, Name: sink},
			LastExportTime: exported, Checksum: "abc", Revision: 4, OK: ok}
		if !ok {
			e.Outcome = busv1.Outcome{Reason: v1alpha1.ReasonExportFailed, Message: "push rejected"}
		}
		return busv1.StatusReport{Service: busv1.ServiceSnapshotExporter, Kind: busv1.KindInventory, Namespace: ns,
			Name: "inv", Generation: 1, ObservedAt: exported, Export: e}
	}
	publish(t, busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindInventory, Namespace: ns, Name: "inv",
		Generation: 1, Inventory: &busv1.InventoryStatus{ItemCount: 12, Revision: 4, Checksum: "abc"}})
	publish(t, report("git-a", true))
	publish(t, report("git-b", false))
	t.Run("one failing sink degrades only its binding", func(t *testing.T) {
		eventually(t, "ExportFailed", func() error {
			if err := hasCondition(t, inv, conds, v1alpha1.ConditionDegraded, metav1.ConditionTrue, v1alpha1.ReasonExportFailed); err != nil {
				return err
			}
			got := map[string]string{}
			for _, e := range inv.Status.SinkExports {
				got[e.Name] = fmt.Sprintf("%s rev %d", e.Conditions[0].Reason, e.LastRevision)
			}
			want := map[string]string{"snapshot/git-a": "Exported rev 4", "snapshot/git-b": "ExportFailed rev 4"}
			if d := cmp.Diff(want, got); d != "" {
				return fmt.Errorf("sinkExports (-want +got):\n%s", d)
			}
			if inv.Status.ItemCount != 12 || inv.Status.LastExportTime == nil || !inv.Status.LastExportTime.Time.Equal(exported) {
				return fmt.Errorf("itemCount %d lastExportTime %v", inv.Status.ItemCount, inv.Status.LastExportTime)
			}
			return nil
		})
	})
	t.Run("every sink exported makes the inventory Synced", func(t *testing.T) {
		publish(t, report("git-b", true))
		eventually(t, "Synced", func() error {
			return hasCondition(t, inv, conds, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonExported)
		})
	})
}

func TestABurstOfReportsBecomesFewStatusWrites(t *testing.T) {
	ns := namespace(t)
	create(t, gitSink(ns, "git-a"))
	inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "burst"},
		Spec: v1alpha1.KollectInventorySpec{SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "git-a"}}}}
	create(t, inv)
	conds := func() []metav1.Condition { return inv.Status.Conditions }
	eventually(t, "Synced unknown", func() error {
		return hasCondition(t, inv, conds, v1alpha1.ConditionSynced, metav1.ConditionUnknown, v1alpha1.ReasonProgressing)
	})
	wc, err := client.NewWithWatch(shared.kube.Config, client.Options{Scheme: shared.kube.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(t.Context(), &v1alpha1.KollectInventoryList{}, client.InNamespace(ns),
		client.MatchingFields{"metadata.name": "burst"}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: inv.ResourceVersion}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// One revision every 50ms for 2s, as a busy inventory reports them.
	const revisions = 40
	pace := time.NewTicker(50 * time.Millisecond)
	defer pace.Stop()
	for rev := uint64(1); rev <= revisions; rev++ {
		<-pace.C
		publish(t, busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindInventory, Namespace: ns, Name: "burst",
			Generation: 1, Inventory: &busv1.InventoryStatus{ItemCount: int(rev), Revision: rev, Checksum: fmt.Sprint(rev)}})
	}
	writes := 0
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-w.ResultChan():
			got, ok := ev.Object.(*v1alpha1.KollectInventory)
			if !ok {
				t.Fatalf("watch event %s of %T", ev.Type, ev.Object)
			}
			writes++
			if got.Status.ItemCount != revisions {
				continue
			}
			if writes > 6 {
				t.Errorf("%d reports in a burst became %d status writes, want them folded into a few", revisions, writes)
			}
			return
		case <-deadline:
			t.Fatalf("the last report never reached the status (%d writes seen)", writes)
		}
	}
}

// TestAnInventoryWithoutSinksIsSyncedOnceItsSnapshotIsPublished: with no
// sink bound, Synced waits for the aggregator's first snapshot, so that
// `kubectl wait --for=condition=Synced` followed by `kollect history` (the
// README's route) finds a revision.
func TestAnInventoryWithoutSinksIsSyncedOnceItsSnapshotIsPublished(t *testing.T) {
	ns := namespace(t)
	inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "no-sinks"}}
	create(t, inv)
	conds := func() []metav1.Condition { return inv.Status.Conditions }
	eventually(t, "Synced unknown before the first snapshot", func() error {
		return hasCondition(t, inv, conds, v1alpha1.ConditionSynced, metav1.ConditionUnknown, v1alpha1.ReasonProgressing)
	})
	publish(t, busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindInventory, Namespace: ns, Name: "no-sinks",
		Generation: 1, Inventory: &busv1.InventoryStatus{ItemCount: 2, Revision: 1, Checksum: "abc"}})
	eventually(t, "Synced once revision 1 is published", func() error {
		return hasCondition(t, inv, conds, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonExported)
	})
}
