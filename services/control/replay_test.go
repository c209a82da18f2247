package control_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
)

// readyIs checks obj's Ready condition.
func readyIs(t *testing.T, obj *v1alpha1.KollectReplay, status metav1.ConditionStatus, reason, msg string) error {
	if err := get(t, obj); err != nil {
		return err
	}
	c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ConditionReady)
	if c == nil || c.Status != status || c.Reason != reason || c.Message != msg {
		return fmt.Errorf("Ready = %+v, want %s %s: %s", c, status, reason, msg)
	}
	return nil
}

func TestReplayIsCompiledForTheAggregatorAndItsProgressFolded(t *testing.T) {
	ns := namespace(t)
	grantReplays(t, ns, "kollectinventories", "")
	create(t, gitSink(ns, "git-a"))
	create(t, &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"},
		Spec: v1alpha1.KollectInventorySpec{SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "git-a"}}}})
	rp := &v1alpha1.KollectReplay{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fill"},
		Spec: v1alpha1.KollectReplaySpec{InventoryRef: v1alpha1.ReplayInventoryRef{Name: "inv"}, Sink: "snapshot/git-a",
			Backfill: &v1alpha1.ReplayRange{FromRevision: ptr.To[int64](2)}}}
	create(t, rp)
	var req busv1.ReplayRequest
	eventually(t, "the replay request", func() error {
		if err := configEntry(t, ref(busv1.KindReplay, ns, "fill"), &req); err != nil {
			return err
		}
		want := busv1.ReplayRequest{Namespace: ns, Name: "fill", UID: string(rp.UID), Generation: 1,
			InventoryKind: busv1.KindInventory, Inventory: busv1.NamespacedName{Namespace: ns, Name: "inv"},
			Sink: busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: ns, Name: "git-a"}, Backfill: true, FromRevision: 2,
			RequestedAt: rp.CreationTimestamp.UTC()}
		if d := cmp.Diff(want, req); d != "" {
			return fmt.Errorf("request (-want +got):\n%s", d)
		}
		return nil
	})
	eventually(t, "Pending", func() error {
		if err := readyIs(t, rp, metav1.ConditionUnknown, v1alpha1.ReasonProgressing, "waiting for the aggregator"); err != nil {
			return err
		}
		if rp.Status.Phase != v1alpha1.ReplayPending {
			return fmt.Errorf("phase %s", rp.Status.Phase)
		}
		return nil
	})
	report := func(st busv1.ReplayStatus) {
		publish(t, busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindReplay, Namespace: ns, Name: "fill",
			Generation: 1, ObservedAt: time.Now(), Replay: &st})
	}
	start := time.Now().UTC().Truncate(time.Second)
	report(busv1.ReplayStatus{UID: "another-object", Phase: busv1.ReplayFailed, Outcome: busv1.Outcome{Reason: "ReplayFailed", Message: "old"}})
	queued := "queued: the aggregator already runs 4 replays, the most it runs at once (--max-replays); replays waiting ahead of it: 0"
	report(busv1.ReplayStatus{UID: string(rp.UID), Phase: busv1.ReplayPending, Outcome: busv1.Outcome{Message: queued}})
	eventually(t, "Pending, queued", func() error {
		if err := readyIs(t, rp, metav1.ConditionUnknown, v1alpha1.ReasonProgressing, queued); err != nil {
			return err
		}
		if rp.Status.Phase != v1alpha1.ReplayPending {
			return fmt.Errorf("phase %s", rp.Status.Phase)
		}
		return nil
	})
	report(busv1.ReplayStatus{UID: string(rp.UID), Phase: busv1.ReplayRunning, RevisionsTotal: 4, RevisionsDone: 1, LastRevision: 2, StartedAt: start})
	eventually(t, "Running", func() error {
		if err := readyIs(t, rp, metav1.ConditionUnknown, v1alpha1.ReasonProgressing, "delivered 1 of 4 revisions to snapshot/git-a"); err != nil {
			return err
		}
		if s := rp.Status; s.Phase != v1alpha1.ReplayRunning || s.RevisionsDone != 1 || s.RevisionsTotal != 4 || s.LastRevision != 2 {
			return fmt.Errorf("status %+v", s)
		}
		return nil
	})
	report(busv1.ReplayStatus{UID: string(rp.UID), Phase: busv1.ReplaySucceeded, RevisionsTotal: 4, RevisionsDone: 4, LastRevision: 5,
		StartedAt: start, FinishedAt: start.Add(time.Second)})
	eventually(t, "Succeeded", func() error {
		if err := readyIs(t, rp, metav1.ConditionTrue, v1alpha1.ReasonSucceeded, "delivered 4 of 4 revisions to snapshot/git-a"); err != nil {
			return err
		}
		if s := rp.Status; s.Phase != v1alpha1.ReplaySucceeded || s.CompletionTime == nil || s.RevisionsDone != 4 {
			return fmt.Errorf("status %+v", s)
		}
		return nil
	})
}

func TestReplayOfAnUnboundSinkOrAMissingInventoryIsNotReady(t *testing.T) {
	ns := namespace(t)
	grantReplays(t, ns, "kollectinventories", "")
	create(t, &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"}})
	tests := []struct {
		name, inventory, reason, msg string
	}{
		{"a sink the inventory does not bind", "inv", v1alpha1.ReasonSinkNotFound,
			"spec.sink: KollectInventory inv does not bind database/pg"},
		{"a missing inventory", "gone", v1alpha1.ReasonInventoryNotFound,
			"spec.inventoryRef: KollectInventory gone not found"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rp := &v1alpha1.KollectReplay{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("r%d", i)},
				Spec: v1alpha1.KollectReplaySpec{InventoryRef: v1alpha1.ReplayInventoryRef{Name: tt.inventory}, Sink: "database/pg"}}
			create(t, rp)
			eventually(t, "Ready=False "+tt.reason, func() error {
				return readyIs(t, rp, metav1.ConditionFalse, tt.reason, tt.msg)
			})
			var req busv1.ReplayRequest
			if err := configEntry(t, ref(busv1.KindReplay, ns, rp.Name), &req); err == nil {
				t.Errorf("a replay that cannot run has a request: %+v", req)
			}
		})
	}
}

// TestAFinishedReplayLeavesNoRequestForTheAggregator is F9 of
// SECURITY-3: the aggregator's report of a finished replay expires after
// seven days, and an aggregator that restarted later ran every finished
// replay whose request was still in the config bucket again. Control
// deletes the request once the terminal phase is in the stored status, and
// again at any later reconcile (a crash between the two); the phase stays
// when the report is gone.
func TestAFinishedReplayLeavesNoRequestForTheAggregator(t *testing.T) {
	ns := namespace(t)
	grantReplays(t, ns, "kollectinventories", "")
	create(t, gitSink(ns, "git-a"))
	create(t, &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"},
		Spec: v1alpha1.KollectInventorySpec{SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "git-a"}}}})
	rp := &v1alpha1.KollectReplay{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "once"},
		Spec: v1alpha1.KollectReplaySpec{InventoryRef: v1alpha1.ReplayInventoryRef{Name: "inv"}, Sink: "snapshot/git-a"}}
	create(t, rp)
	key := ref(busv1.KindReplay, ns, "once")
	var req busv1.ReplayRequest
	eventually(t, "the replay request", func() error { return configEntry(t, key, &req) })
	start := time.Now().UTC().Truncate(time.Second)
	publish(t, busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindReplay, Namespace: ns, Name: "once",
		Generation: 1, ObservedAt: time.Now(), Replay: &busv1.ReplayStatus{UID: string(rp.UID), Phase: busv1.ReplaySucceeded,
			RevisionsTotal: 1, RevisionsDone: 1, LastRevision: 3, StartedAt: start, FinishedAt: start.Add(time.Second)}})
	succeeded := func() error {
		if err := readyIs(t, rp, metav1.ConditionTrue, v1alpha1.ReasonSucceeded, "delivered 1 of 1 revisions to snapshot/git-a"); err != nil {
			return err
		}
		if s := rp.Status; s.Phase != v1alpha1.ReplaySucceeded || s.LastRevision != 3 || s.CompletionTime == nil {
			return fmt.Errorf("status %+v", s)
		}
		return nil
	}
	eventually(t, "Succeeded", succeeded)
	eventually(t, "the request of the finished replay to be deleted", func() error { return noEntry(t, key) })

	// The report expires (here: is purged) and control is left with no
	// report of the replay at all.
	s, err := shared.nats.JS.Stream(t.Context(), bus.StreamStatus)
	if err != nil {
		t.Fatal(err)
	}
	subject := bus.StatusSubject(bus.StatusAddress{Service: busv1.ServiceAggregator, Kind: busv1.KindReplay, Namespace: ns, Name: "once"})
	if err := s.Purge(t.Context(), jetstream.WithPurgeSubject(subject)); err != nil {
		t.Fatal(err)
	}
	// A control that crashed after storing the phase but before deleting
	// the request: the request is back, and the next reconcile (here
	// caused by a label, at a restart by the initial list) deletes it.
	data, _ := json.Marshal(req)
	if _, err := shared.kv.Put(t.Context(), bus.ConfigKey(key), data); err != nil {
		t.Fatal(err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := get(t, rp); err != nil {
			return err
		}
		rp.Labels = map[string]string{"poke": "1"}
		return shared.kube.Client.Update(t.Context(), rp)
	})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the request put back to be deleted again", func() error { return noEntry(t, key) })
	if err := succeeded(); err != nil {
		t.Errorf("after the report expired: %v", err)
	}
}
