package control_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
)

// The webhook's friendly early errors for the quotas: each names the
// limit, who set it (the operator's flag or the Scope's field) and the
// usage. The operator's flags are the defaults (50 inventories, 200
// bindings, 4 replays in flight, history 100 revisions, 720h, 256Mi).

// admittedEventually creates obj, retrying while the webhook's cache has
// not seen what the test created before (a refusal that lifts).
func admittedEventually(t *testing.T, obj client.Object) {
	t.Helper()
	eventually(t, "admitted "+obj.GetName(), func() error {
		return shared.kube.Client.Create(t.Context(), obj.DeepCopyObject().(client.Object))
	})
}

func TestWebhookRefusesInventoriesOverTheNamespaceQuota(t *testing.T) {
	ns := webhookNamespace(t)
	quotaScope(t, ns, v1alpha1.ScopeQuotas{MaxInventories: ptr.To[int32](2), MaxBindings: ptr.To[int32](3)})
	c := shared.kube.Client
	admittedEventually(t, bareInventory(ns, "a", "git-a", "git-b"))
	admittedEventually(t, bareInventory(ns, "b"))
	refused(t, "a third inventory", func() error { return c.Create(t.Context(), bareInventory(ns, "c")) },
		fmt.Sprintf("namespace %s has 2 KollectInventories, the limit is 2 (maxInventories of KollectScope team)", ns))
	grow := bareInventory(ns, "b", "git-a", "git-b")
	refused(t, "bindings past the quota", func() error {
		cur := bareInventory(ns, "b")
		if err := get(t, cur); err != nil {
			return err
		}
		grow.ResourceVersion = cur.ResourceVersion
		return c.Update(t.Context(), grow)
	}, fmt.Sprintf("namespace %s would hold 4 sink bindings with this inventory's 2 (its other inventories hold 2), "+
		"the limit is 3 (maxBindings of KollectScope team)", ns))
	t.Run("an update that does not add bindings to a namespace over its quota is admitted", func(t *testing.T) {
		// The Scope tightened after the fact: a holds 2 bindings, the limit
		// becomes 1; editing a without adding one stays possible.
		scope := &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"}}
		update(t, scope, func() { scope.Spec.MaxBindings = ptr.To[int32](1) })
		a := bareInventory(ns, "a")
		update(t, a, func() { a.Spec.ExportMinInterval = dur(time.Hour) })
	})
}

// TestWebhookAppliesTheOperatorsQuotaOverALooserScope: a Scope's quota
// above the operator's is ignored, and the refusal names the operator's
// flag.
func TestWebhookAppliesTheOperatorsQuotaOverALooserScope(t *testing.T) {
	ns := webhookNamespace(t)
	quotaScope(t, ns, v1alpha1.ScopeQuotas{MaxReplays: ptr.To[int32](100)})
	admittedEventually(t, bareInventory(ns, "inv", "git-a"))
	for i := range 4 {
		admittedEventually(t, replayObj(ns, fmt.Sprintf("r%d", i), "", "inv", "snapshot/git-a"))
	}
	refused(t, "a fifth replay in flight", func() error {
		return shared.kube.Client.Create(t.Context(), replayObj(ns, "r4", "", "inv", "snapshot/git-a"))
	}, fmt.Sprintf("namespace %s has 4 KollectReplays in flight (neither Succeeded nor Failed), the limit is 4 (--max-replays-per-namespace)", ns))
}

// TestWebhookRefusesAHistoryAboveTheOperatorsCap: without a Scope, and
// with a Scope whose maxHistory is looser, a spec.history above the
// operator's cap is refused, naming the field, the value, the cap and the
// flag.
func TestWebhookRefusesAHistoryAboveTheOperatorsCap(t *testing.T) {
	loose := webhookNamespace(t)
	create(t, &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: loose, Name: "team"}, Spec: v1alpha1.KollectScopeSpec{
		ScopeRules: v1alpha1.ScopeRules{MaxHistory: &v1alpha1.History{Revisions: ptr.To[int32](1000)}}}})
	none := webhookNamespace(t)
	gi := resource.MustParse("1Gi")
	tests := []struct {
		name   string
		ns     string
		h      v1alpha1.History
		denial string
	}{
		{"revisions", none, v1alpha1.History{Revisions: ptr.To[int32](101)},
			"spec.history.revisions: 101 is above the cap 100 of the operator (--history-max-revisions)"},
		{"maxAge", none, v1alpha1.History{MaxAge: dur(2160 * time.Hour)},
			"spec.history.maxAge: 2160h0m0s is above the cap 720h0m0s of the operator (--history-max-age)"},
		{"maxBytes", none, v1alpha1.History{MaxBytes: &gi},
			"spec.history.maxBytes: 1073741824 is above the cap 268435456 of the operator (--history-max-bytes)"},
		{"revisions under a looser Scope", loose, v1alpha1.History{Revisions: ptr.To[int32](1000)},
			"spec.history.revisions: 1000 is above the cap 100 of the operator (--history-max-revisions)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inv := bareInventory(tc.ns, "inv")
			inv.Spec.History = &tc.h
			refused(t, "denial", func() error { return shared.kube.Client.Create(t.Context(), inv.DeepCopy()) }, tc.denial)
		})
	}
	t.Run("a cluster inventory's", func(t *testing.T) {
		inv := &v1alpha1.KollectClusterInventory{ObjectMeta: metav1.ObjectMeta{Name: none + "-long"},
			Spec: v1alpha1.KollectClusterInventorySpec{TargetRefs: []string{"any"}, History: &v1alpha1.History{Revisions: ptr.To[int32](500)}}}
		refused(t, "denial", func() error { return shared.kube.Client.Create(t.Context(), inv.DeepCopy()) },
			"spec.history.revisions: 500 is above the cap 100 of the operator (--history-max-revisions)")
	})
	t.Run("a history at the cap is admitted", func(t *testing.T) {
		inv := bareInventory(none, "at-cap")
		inv.Spec.History = &v1alpha1.History{Revisions: ptr.To[int32](100), MaxAge: dur(720 * time.Hour)}
		create(t, inv)
	})
}
