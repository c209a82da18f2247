package control_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// The quotas of a namespace at reconcile, with the webhook off (namespace()
// is not labelled for it): the operator's flags are the defaults (50
// inventories, 200 bindings, 4 replays in flight, history 100 revisions,
// 720h, 256Mi), a KollectScope tightens them.

// quotaScope creates the namespace's KollectScope "team" with quotas q.
func quotaScope(t *testing.T, ns string, q v1alpha1.ScopeQuotas) {
	t.Helper()
	create(t, &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"},
		Spec: v1alpha1.KollectScopeSpec{ScopeQuotas: q}})
}

// readyWith checks obj's Ready condition, read fresh: status, reason and
// message.
func readyWith(t *testing.T, obj client.Object, conds func() []metav1.Condition, status metav1.ConditionStatus, reason, msg string) error {
	t.Helper()
	if err := get(t, obj); err != nil {
		return err
	}
	c := meta.FindStatusCondition(conds(), v1alpha1.ConditionReady)
	if c == nil || c.Status != status || c.Reason != reason || c.Message != msg {
		return fmt.Errorf("Ready = %+v, want %s %s: %s", c, status, reason, msg)
	}
	return nil
}

// inventoryRunning checks that inv has its config entry and is Ready=True.
func inventoryRunning(t *testing.T, inv *v1alpha1.KollectInventory) error {
	t.Helper()
	var cfg busv1.InventoryConfig
	if err := configEntry(t, ref(busv1.KindInventory, inv.Namespace, inv.Name), &cfg); err != nil {
		return fmt.Errorf("entry of %s: %w", inv.Name, err)
	}
	return hasCondition(t, inv, func() []metav1.Condition { return inv.Status.Conditions }, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonSucceeded)
}

// inventoryRefused checks that inv has no config entry and is Ready=False
// QuotaExceeded with msg.
func inventoryRefused(t *testing.T, inv *v1alpha1.KollectInventory, msg string) error {
	t.Helper()
	if err := noEntry(t, ref(busv1.KindInventory, inv.Namespace, inv.Name)); err != nil {
		return err
	}
	return readyWith(t, inv, func() []metav1.Condition { return inv.Status.Conditions }, metav1.ConditionFalse, v1alpha1.ReasonQuotaExceeded, msg)
}

func bareInventory(ns, name string, sinks ...string) *v1alpha1.KollectInventory {
	inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	for _, s := range sinks {
		inv.Spec.SnapshotSinkRefs = append(inv.Spec.SnapshotSinkRefs, v1alpha1.SinkBinding{Name: s})
	}
	return inv
}

// TestInventoriesOverTheQuotaAreRefusedNewestFirst: with the webhook off,
// the inventories of a namespace past its quota (here a Scope's
// maxInventories: 2) get no config entry and Ready=False QuotaExceeded,
// the newest by creation time first: one created later never evicts an
// older, working one, whatever its name. Deleting one lets the oldest
// refused one run.
func TestInventoriesOverTheQuotaAreRefusedNewestFirst(t *testing.T) {
	ns := namespace(t)
	quotaScope(t, ns, v1alpha1.ScopeQuotas{MaxInventories: ptr.To[int32](2)})
	a, b, c := bareInventory(ns, "a"), bareInventory(ns, "b"), bareInventory(ns, "c")
	for _, inv := range []*v1alpha1.KollectInventory{a, b, c} {
		create(t, inv)
	}
	over := func(n, rank int) string {
		return fmt.Sprintf("namespace %s has %d KollectInventories, the limit is 2 (maxInventories of KollectScope team): "+
			"the 2 oldest export, this one (number %d by creation time) does not", ns, n, rank)
	}
	eventually(t, "a and b run", func() error { return errors.Join(inventoryRunning(t, a), inventoryRunning(t, b)) })
	eventually(t, "c refused", func() error { return inventoryRefused(t, c, over(3, 3)) })

	// Creation times have one-second resolution: the next one is newer.
	testenv.EventuallyTrue(t, 3*time.Second, "a second passed", func() bool {
		return time.Now().Truncate(time.Second).After(c.CreationTimestamp.Time)
	})
	first := bareInventory(ns, "0-first-by-name")
	create(t, first)
	eventually(t, "the newest is refused, whatever its name", func() error { return inventoryRefused(t, first, over(4, 4)) })
	eventually(t, "a and b still run", func() error { return errors.Join(inventoryRunning(t, a), inventoryRunning(t, b)) })

	if err := shared.kube.Client.Delete(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	eventually(t, "c, the oldest refused, runs once a is gone", func() error { return inventoryRunning(t, c) })
	eventually(t, "the newest stays refused", func() error { return inventoryRefused(t, first, over(3, 3)) })
}

// TestBindingsOverTheQuotaRefuseTheInventoryThatPassesIt: with the webhook
// off, an inventory whose bindings, added to the older inventories',
// pass the namespace's quota of bindings (a Scope's maxBindings: 3) is
// refused; when an older one drops bindings, it runs.
func TestBindingsOverTheQuotaRefuseTheInventoryThatPassesIt(t *testing.T) {
	ns := namespace(t)
	quotaScope(t, ns, v1alpha1.ScopeQuotas{MaxBindings: ptr.To[int32](3)})
	for _, s := range []string{"git-a", "git-b"} {
		create(t, gitSink(ns, s))
	}
	older, newer := bareInventory(ns, "older", "git-a", "git-b"), bareInventory(ns, "newer", "git-a", "git-b")
	create(t, older)
	eventually(t, "older runs", func() error { return inventoryRunning(t, older) })
	create(t, newer)
	eventually(t, "newer refused", func() error {
		return inventoryRefused(t, newer, fmt.Sprintf("namespace %s would hold 4 sink bindings with this inventory's 2 "+
			"(the older inventories hold 2), the limit is 3 (maxBindings of KollectScope team)", ns))
	})
	eventually(t, "older still runs", func() error { return inventoryRunning(t, older) })
	update(t, older, func() { older.Spec.SnapshotSinkRefs = older.Spec.SnapshotSinkRefs[:1] })
	eventually(t, "newer runs once older binds one sink", func() error { return inventoryRunning(t, newer) })
}

// TestAScopeCannotLoosenTheOperatorsQuota: a Scope's quota above the
// operator's is ignored; the operator's flag applies and is named (200
// bindings by default: four inventories of 50 take them all).
func TestAScopeCannotLoosenTheOperatorsQuota(t *testing.T) {
	ns := namespace(t)
	quotaScope(t, ns, v1alpha1.ScopeQuotas{MaxBindings: ptr.To[int32](1000)})
	fifty := func(name string) *v1alpha1.KollectInventory {
		inv := bareInventory(ns, name)
		for i := range 20 {
			inv.Spec.SnapshotSinkRefs = append(inv.Spec.SnapshotSinkRefs, v1alpha1.SinkBinding{Name: fmt.Sprintf("s%d", i)})
			inv.Spec.DatabaseSinkRefs = append(inv.Spec.DatabaseSinkRefs, v1alpha1.SinkBinding{Name: fmt.Sprintf("d%d", i)})
		}
		for i := range 10 {
			inv.Spec.EventSinkRefs = append(inv.Spec.EventSinkRefs, v1alpha1.SinkBinding{Name: fmt.Sprintf("e%d", i)})
		}
		return inv
	}
	var full []*v1alpha1.KollectInventory
	for _, name := range []string{"a", "b", "c", "d"} {
		full = append(full, fifty(name))
		create(t, full[len(full)-1])
	}
	last := bareInventory(ns, "e", "git")
	create(t, last)
	eventually(t, "the fifth inventory refused by the operator's quota", func() error {
		return inventoryRefused(t, last, fmt.Sprintf("namespace %s would hold 201 sink bindings with this inventory's 1 "+
			"(the older inventories hold 200), the limit is 200 (--max-bindings-per-namespace)", ns))
	})
	for _, inv := range full {
		eventually(t, inv.Name+" has its entry", func() error {
			var cfg busv1.InventoryConfig
			return configEntry(t, ref(busv1.KindInventory, ns, inv.Name), &cfg)
		})
	}
}

// TestReplaysOverTheQuotaWaitPendingForASlot: with the webhook off, a
// replay past the namespace's quota of replays in flight (a Scope's
// maxReplays: 1) gets no request and stays Pending with QuotaExceeded, not
// failed; once the one ahead of it finishes, it gets its request.
func TestReplaysOverTheQuotaWaitPendingForASlot(t *testing.T) {
	ns := namespace(t)
	grantReplays(t, ns, "kollectinventories", "")
	quotaScope(t, ns, v1alpha1.ScopeQuotas{MaxReplays: ptr.To[int32](1)})
	create(t, gitSink(ns, "git-a"))
	create(t, bareInventory(ns, "inv", "git-a"))
	first, second := replayObj(ns, "first", "", "inv", "snapshot/git-a"), replayObj(ns, "second", "", "inv", "snapshot/git-a")
	create(t, first)
	var req busv1.ReplayRequest
	eventually(t, "the first replay's request", func() error { return configEntry(t, ref(busv1.KindReplay, ns, "first"), &req) })
	create(t, second)
	eventually(t, "the second waits", func() error {
		if err := readyIs(t, second, metav1.ConditionUnknown, v1alpha1.ReasonQuotaExceeded, fmt.Sprintf("waiting for a slot: "+
			"namespace %s has 1 KollectReplays in flight ahead of this one, the limit is 1 (maxReplays of KollectScope team); it starts when one finishes", ns)); err != nil {
			return err
		}
		if second.Status.Phase != v1alpha1.ReplayPending {
			return fmt.Errorf("phase %q, want Pending", second.Status.Phase)
		}
		return noEntry(t, ref(busv1.KindReplay, ns, "second"))
	})
	if err := get(t, first); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	publish(t, busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindReplay, Namespace: ns, Name: "first",
		Generation: 1, ObservedAt: now, Replay: &busv1.ReplayStatus{UID: string(first.UID), Phase: busv1.ReplaySucceeded,
			RevisionsTotal: 1, RevisionsDone: 1, LastRevision: 1, StartedAt: now, FinishedAt: now}})
	eventually(t, "the second's request once the first finished", func() error {
		if err := configEntry(t, ref(busv1.KindReplay, ns, "second"), &req); err != nil {
			return err
		}
		return readyIs(t, second, metav1.ConditionUnknown, v1alpha1.ReasonProgressing, "waiting for the aggregator")
	})
}

// TestTheOperatorsHistoryCapIsFoldedIntoTheEntry: the operator's cap
// (--history-max-*, defaults 100 revisions, 720h, 256Mi) is written into
// every inventory's entry, so the aggregator applies it with the webhook
// off; a history above it is capped and Ready says so, naming the flag; a
// Scope's maxHistory tightens it field by field and cannot loosen it; the
// Scope's namespace quota goes into the entry for the aggregator.
func TestTheOperatorsHistoryCapIsFoldedIntoTheEntry(t *testing.T) {
	ns := namespace(t)
	inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"},
		Spec: v1alpha1.KollectInventorySpec{History: &v1alpha1.History{Revisions: ptr.To[int32](500), MaxAge: dur(2160 * time.Hour)}}}
	create(t, inv)
	asked := busv1.HistoryLimits{Revisions: 500, MaxAge: busv1.Duration{Duration: 2160 * time.Hour}}
	operator := busv1.HistoryLimits{Revisions: 100, MaxAge: busv1.Duration{Duration: 720 * time.Hour}, MaxBytes: 256 << 20}
	entry := func(want busv1.InventoryConfig) func() error {
		return func() error {
			var cfg busv1.InventoryConfig
			if err := configEntry(t, ref(busv1.KindInventory, ns, "inv"), &cfg); err != nil {
				return err
			}
			got := busv1.InventoryConfig{History: cfg.History, HistoryCap: cfg.HistoryCap, NamespaceQuota: cfg.NamespaceQuota}
			if d := cmp.Diff(want, got); d != "" {
				return fmt.Errorf("entry (-want +got):\n%s", d)
			}
			return nil
		}
	}
	capped := func(msg string) func() error {
		return func() error {
			return readyWith(t, inv, func() []metav1.Condition { return inv.Status.Conditions }, metav1.ConditionTrue,
				v1alpha1.ReasonScopeHistoryCapped, "exporting to 0 of 0 sinks; "+msg)
		}
	}
	eventually(t, "the operator's cap in the entry", entry(busv1.InventoryConfig{History: asked, HistoryCap: operator}))
	eventually(t, "Ready=ScopeHistoryCapped naming the flags", capped(
		"spec.history.revisions: 500 is above the cap 100 of the operator (--history-max-revisions); "+
			"spec.history.maxAge: 2160h0m0s is above the cap 720h0m0s of the operator (--history-max-age)"))

	bytes := resource.MustParse("1Gi")
	create(t, &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"}, Spec: v1alpha1.KollectScopeSpec{
		ScopeRules:  v1alpha1.ScopeRules{MaxHistory: &v1alpha1.History{Revisions: ptr.To[int32](1000), MaxAge: dur(24 * time.Hour)}},
		ScopeQuotas: v1alpha1.ScopeQuotas{MaxNamespaceBusBytes: &bytes, MaxNamespaceRevisions: ptr.To[int64](300)}}})
	eventually(t, "the Scope tightens maxAge, not revisions, and its namespace quota is in the entry", entry(busv1.InventoryConfig{
		History:        asked,
		HistoryCap:     busv1.HistoryLimits{Revisions: 100, MaxAge: busv1.Duration{Duration: 24 * time.Hour}, MaxBytes: 256 << 20},
		NamespaceQuota: busv1.NamespaceQuota{BusBytes: 1 << 30, HistoryRevisions: 300}}))
	eventually(t, "Ready names who set each cap", capped(
		"spec.history.revisions: 500 is above the cap 100 of the operator (--history-max-revisions); "+
			"spec.history.maxAge: 2160h0m0s is above the cap 24h0m0s of KollectScope team"))
}

// update changes obj with edit and writes it, retrying on conflicts.
func update(t *testing.T, obj client.Object, edit func()) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := get(t, obj); err != nil {
			return err
		}
		edit()
		return shared.kube.Client.Update(t.Context(), obj)
	})
	if err != nil {
		t.Fatalf("update %s: %v", obj.GetName(), err)
	}
}
