package control_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

func TestScopeDegradesTargetsCreatedBeforeIt(t *testing.T) {
	tests := []struct {
		name   string
		rules  v1alpha1.ScopeRules
		target func(ns string) *v1alpha1.KollectTarget
		reason string
	}{
		{"a Scope whose allowedGVKs omit the profile's kind makes the target ScopeGVKDenied",
			v1alpha1.ScopeRules{AllowedGVKs: []v1alpha1.AllowedGVK{{Group: "apps", Kind: "Deployment"}}},
			func(ns string) *v1alpha1.KollectTarget { return targetObj(ns, "cms", "cms") },
			v1alpha1.ReasonScopeGVKDenied},
		{"a Scope denying a namespace the target includes makes it ScopeNamespaceDenied",
			v1alpha1.ScopeRules{DeniedNamespaces: []string{"payments"}},
			func(ns string) *v1alpha1.KollectTarget {
				tg := targetObj(ns, "cms", "cms")
				tg.Spec.IncludedNamespaces = append(tg.Spec.IncludedNamespaces, "payments")
				return tg
			},
			v1alpha1.ReasonScopeNamespaceDenied},
		{"a Scope whose allowedNamespaces omit an included namespace makes it ScopeNamespaceDenied",
			v1alpha1.ScopeRules{AllowedNamespaces: []string{}},
			func(ns string) *v1alpha1.KollectTarget { return targetObj(ns, "cms", "cms") },
			v1alpha1.ReasonScopeNamespaceDenied},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns := namespace(t)
			create(t, profile(ns, "cms", configMaps))
			tg := tc.target(ns)
			create(t, tg)
			var cfg busv1.TargetConfig
			eventually(t, "entry before the Scope", func() error { return configEntry(t, ref(busv1.KindTarget, ns, "cms"), &cfg) })
			create(t, &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"}, Spec: v1alpha1.KollectScopeSpec{ScopeRules: tc.rules}})
			eventually(t, tc.reason, func() error {
				return hasCondition(t, tg, func() []metav1.Condition { return tg.Status.Conditions },
					v1alpha1.ConditionReady, metav1.ConditionFalse, tc.reason)
			})
			eventually(t, "entry removed", func() error { return noEntry(t, ref(busv1.KindTarget, ns, "cms")) })
		})
	}
}

func TestScopeBoundsAWideSelection(t *testing.T) {
	ns := namespace(t)
	create(t, profile(ns, "cms", configMaps))
	create(t, &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"},
		Spec: v1alpha1.KollectScopeSpec{ScopeRules: v1alpha1.ScopeRules{AllowedNamespaces: []string{ns}}}})
	tg := targetObj(ns, "all", "cms")
	tg.Spec.IncludedNamespaces = nil
	create(t, tg)
	eventually(t, "degraded but running", func() error {
		return hasCondition(t, tg, func() []metav1.Condition { return tg.Status.Conditions },
			v1alpha1.ConditionDegraded, metav1.ConditionTrue, v1alpha1.ReasonScopeNamespaceDenied)
	})
	var cfg busv1.TargetConfig
	if err := configEntry(t, ref(busv1.KindTarget, ns, "all"), &cfg); err != nil || len(cfg.Scope) == 0 {
		t.Fatalf("entry %+v (%v): want one carrying the Scope, which the collector applies", cfg, err)
	}
}

func TestOnlyTheOldestScopeIsHonoured(t *testing.T) {
	ns := namespace(t)
	first := &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a-first"}}
	create(t, first)
	eventually(t, "first Ready", func() error {
		return hasCondition(t, first, func() []metav1.Condition { return first.Status.Conditions },
			v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonSucceeded)
	})
	// Creation timestamps have one-second resolution; the second Scope is
	// created once the first is Ready, and ties break by name.
	second := &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "b-second"},
		Spec: v1alpha1.KollectScopeSpec{ScopeRules: v1alpha1.ScopeRules{AllowedGVKs: []v1alpha1.AllowedGVK{}}}}
	create(t, second)
	conds := func() []metav1.Condition { return second.Status.Conditions }
	eventually(t, "second ScopeConflict", func() error {
		return hasCondition(t, second, conds, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonScopeConflict)
	})
	t.Run("the second Scope's rules do not apply while the first is honoured", func(t *testing.T) {
		create(t, profile(ns, "cms", configMaps))
		create(t, targetObj(ns, "cms", "cms"))
		var cfg busv1.TargetConfig
		eventually(t, "entry", func() error { return configEntry(t, ref(busv1.KindTarget, ns, "cms"), &cfg) })
	})
	t.Run("deleting the first Scope makes the second honoured", func(t *testing.T) {
		if err := shared.kube.Client.Delete(t.Context(), first); err != nil {
			t.Fatal(err)
		}
		eventually(t, "second Ready", func() error {
			return hasCondition(t, second, conds, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonSucceeded)
		})
		eventually(t, "target denied by the second Scope", func() error { return noEntry(t, ref(busv1.KindTarget, ns, "cms")) })
	})
}

func TestOnlyTheOldestClusterScopeIsHonoured(t *testing.T) {
	first := &v1alpha1.KollectClusterScope{ObjectMeta: metav1.ObjectMeta{Name: "a-conflict-first"}}
	create(t, first)
	t.Cleanup(func() { _ = shared.kube.Client.Delete(context.Background(), first) })
	eventually(t, "first Ready", func() error {
		return hasCondition(t, first, func() []metav1.Condition { return first.Status.Conditions },
			v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonSucceeded)
	})
	second := &v1alpha1.KollectClusterScope{ObjectMeta: metav1.ObjectMeta{Name: "b-conflict-second"}}
	create(t, second)
	t.Cleanup(func() { _ = shared.kube.Client.Delete(context.Background(), second) })
	eventually(t, "second ScopeConflict", func() error {
		return hasCondition(t, second, func() []metav1.Condition { return second.Status.Conditions },
			v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonScopeConflict)
	})
}
