package control_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

func clusterTarget(name, profNS, prof string, labels map[string]string) *v1alpha1.KollectClusterTarget {
	// profNS doubles as the fleet label value, so runs never see each
	// other's namespaces.
	return &v1alpha1.KollectClusterTarget{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: v1alpha1.KollectClusterTargetSpec{
			ProfileRef:        v1alpha1.NamespacedObjectReference{Namespace: profNS, Name: prof},
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"fleet": profNS}},
		}}
}

func TestClusterKindsConfigEntries(t *testing.T) {
	platform := namespace(t)
	create(t, profile(platform, "cms", configMaps))
	ct := clusterTarget(platform+"-cms", platform, "cms", map[string]string{"tier": platform})
	create(t, ct)
	var tcfg busv1.TargetConfig
	eventually(t, "cluster target entry", func() error {
		return configEntry(t, ref(busv1.KindClusterTarget, "", ct.Name), &tcfg)
	})
	if tcfg.Kind != busv1.KindClusterTarget || tcfg.ProfileRef != (busv1.NamespacedName{Namespace: platform, Name: "cms"}) {
		t.Fatalf("entry = %+v", tcfg)
	}
	create(t, gitSink(platform, "fleet-git"))
	labelled := labelledNamespace(t, map[string]string{"fleet": platform})
	ci := &v1alpha1.KollectClusterInventory{ObjectMeta: metav1.ObjectMeta{Name: platform + "-inv"},
		Spec: v1alpha1.KollectClusterInventorySpec{
			TargetSelector:    &metav1.LabelSelector{MatchLabels: map[string]string{"tier": platform}},
			TargetRefs:        []string{platform + "-missing"},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"fleet": platform}},
			SinkNamespace:     platform,
			SnapshotSinkRefs:  []v1alpha1.ClusterSinkBinding{{Name: "fleet-git"}},
		}}
	create(t, ci)
	t.Run("a cluster inventory resolves targets, namespaces and sinks in sinkNamespace", func(t *testing.T) {
		eventually(t, "cluster inventory entry", func() error {
			var cfg busv1.InventoryConfig
			if err := configEntry(t, ref(busv1.KindClusterInventory, "", ci.Name), &cfg); err != nil {
				return err
			}
			want := busv1.InventoryConfig{Kind: busv1.KindClusterInventory, Name: ci.Name, UID: string(ci.UID), Generation: 1,
				DeletionPolicy: busv1.DeletionRetain, Dedupe: busv1.DedupeKeepAll,
				TargetRefs: []string{ct.Name, platform + "-missing"}, Namespaces: []string{labelled},
				Bindings: []busv1.Binding{{SinkRef: busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: platform, Name: "fleet-git"},
					EffectiveInterval: cfg.Bindings[0].EffectiveInterval, SinkGeneration: 1}},
				// the operator's history cap (--history-max-*), cluster inventories included
				HistoryCap: busv1.HistoryLimits{Revisions: 100, MaxAge: busv1.Duration{Duration: 720 * time.Hour}, MaxBytes: 256 << 20}}
			if d := cmp.Diff(want, cfg); d != "" {
				return fmt.Errorf("entry (-want +got):\n%s", d)
			}
			return nil
		})
		eventually(t, "TargetNotFound", func() error {
			return hasCondition(t, ci, func() []metav1.Condition { return ci.Status.Conditions },
				v1alpha1.ConditionDegraded, metav1.ConditionTrue, v1alpha1.ReasonTargetNotFound)
		})
	})
	t.Run("a namespace labelled later joins the cluster inventory", func(t *testing.T) {
		late := namespace(t)
		eventually(t, "label", func() error {
			var n corev1.Namespace
			if err := shared.kube.Client.Get(t.Context(), ref2(late), &n); err != nil {
				return err
			}
			n.Labels["fleet"] = platform
			return shared.kube.Client.Update(t.Context(), &n)
		})
		eventually(t, "namespaces", func() error {
			var cfg busv1.InventoryConfig
			if err := configEntry(t, ref(busv1.KindClusterInventory, "", ci.Name), &cfg); err != nil {
				return err
			}
			if len(cfg.Namespaces) != 2 {
				return fmt.Errorf("namespaces %v", cfg.Namespaces)
			}
			return nil
		})
	})
	t.Run("a ClusterScope limiting profile namespaces denies the cluster target", func(t *testing.T) {
		cs := &v1alpha1.KollectClusterScope{ObjectMeta: metav1.ObjectMeta{Name: "platform"},
			Spec: v1alpha1.KollectClusterScopeSpec{AllowedStaticRefNamespaces: []string{"elsewhere"}}}
		create(t, cs)
		t.Cleanup(func() { _ = shared.kube.Client.Delete(context.Background(), cs) })
		eventually(t, "ScopeStaticRefDenied", func() error {
			return hasCondition(t, ct, func() []metav1.Condition { return ct.Status.Conditions },
				v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonScopeStaticRefDenied)
		})
		eventually(t, "entry removed", func() error { return noEntry(t, ref(busv1.KindClusterTarget, "", ct.Name)) })
	})
	t.Run("a ClusterScope denying a namespace the selection reaches degrades the cluster target", func(t *testing.T) {
		cs := &v1alpha1.KollectClusterScope{ObjectMeta: metav1.ObjectMeta{Name: "platform-namespaces"},
			Spec: v1alpha1.KollectClusterScopeSpec{ScopeRules: v1alpha1.ScopeRules{DeniedNamespaces: []string{labelled}}}}
		create(t, cs)
		t.Cleanup(func() { _ = shared.kube.Client.Delete(context.Background(), cs) })
		eventually(t, "ScopeNamespaceDenied", func() error {
			return hasCondition(t, ct, func() []metav1.Condition { return ct.Status.Conditions },
				v1alpha1.ConditionDegraded, metav1.ConditionTrue, v1alpha1.ReasonScopeNamespaceDenied)
		})
		eventually(t, "entry written", func() error {
			var cfg busv1.TargetConfig
			return configEntry(t, ref(busv1.KindClusterTarget, "", ct.Name), &cfg)
		})
	})
}

func TestProfileReadiness(t *testing.T) {
	ns := namespace(t)
	good := profile(ns, "good", configMaps)
	bad := profile(ns, "bad", configMaps)
	bad.Spec.Attributes = []v1alpha1.Attribute{{Name: "x", Path: "cel:object.metadata.name +"}}
	create(t, good)
	create(t, bad)
	eventually(t, "good Ready", func() error {
		return hasCondition(t, good, func() []metav1.Condition { return good.Status.Conditions },
			v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonSucceeded)
	})
	eventually(t, "bad InvalidSpec", func() error {
		return hasCondition(t, bad, func() []metav1.Condition { return bad.Status.Conditions },
			v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonInvalidSpec)
	})
	t.Run("kstatus reads the bad profile as stalled and the good one as current", func(t *testing.T) {
		eventually(t, "bad Stalled", func() error {
			return hasCondition(t, bad, func() []metav1.Condition { return bad.Status.Conditions },
				v1alpha1.ConditionStalled, metav1.ConditionTrue, v1alpha1.ReasonInvalidSpec)
		})
		for _, p := range []*v1alpha1.KollectProfile{good, bad} {
			if p.Status.ObservedGeneration != p.Generation {
				t.Errorf("profile %s: observedGeneration %d, generation %d", p.Name, p.Status.ObservedGeneration, p.Generation)
			}
		}
		for _, typ := range []string{v1alpha1.ConditionReconciling, v1alpha1.ConditionStalled} {
			if c := meta.FindStatusCondition(good.Status.Conditions, typ); c != nil {
				t.Errorf("profile good has %s=%s, want none", typ, c.Status)
			}
		}
	})
}

func TestClusterInventoryNamespaceShards(t *testing.T) {
	platform := namespace(t)
	ci := &v1alpha1.KollectClusterInventory{ObjectMeta: metav1.ObjectMeta{Name: platform + "-shards"},
		Spec: v1alpha1.KollectClusterInventorySpec{TargetRefs: []string{platform + "-cms"}, SinkNamespace: platform}}
	create(t, ci)
	eventually(t, "cluster inventory entry", func() error {
		var cfg busv1.InventoryConfig
		return configEntry(t, ref(busv1.KindClusterInventory, "", ci.Name), &cfg)
	})
	publish(t, busv1.StatusReport{Service: busv1.ServiceAggregator, Kind: busv1.KindClusterInventory, Name: ci.Name,
		Generation: 1, Inventory: &busv1.InventoryStatus{ItemCount: 3, Revision: 2, Checksum: "all",
			NamespaceShards: []busv1.NamespaceShard{{Namespace: "", ItemCount: 1, Checksum: "nodes"},
				{Namespace: "prod-a", ItemCount: 2, Checksum: "a"}}}})
	eventually(t, "namespaceShards", func() error {
		if err := get(t, ci); err != nil {
			return err
		}
		want := []v1alpha1.NamespaceShard{{Namespace: "prod-a", ItemCount: 2, Checksum: "a"}}
		if d := cmp.Diff(want, ci.Status.NamespaceShards); d != "" || ci.Status.ItemCount != 3 {
			return fmt.Errorf("itemCount %d, namespaceShards (-want +got):\n%s", ci.Status.ItemCount, d)
		}
		return nil
	})
}
