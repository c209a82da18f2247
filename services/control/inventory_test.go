package control_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

func dur(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }

// intervals returns binding name → effective interval of an entry.
func intervals(cfg busv1.InventoryConfig) map[string]string {
	out := map[string]string{}
	for _, b := range cfg.Bindings {
		out[b.BindingName()] = b.EffectiveInterval.String()
	}
	return out
}

func TestInventoryConfigEntry(t *testing.T) {
	tests := []struct {
		name  string
		scope *v1alpha1.ScopeRules
		want  map[string]string
		// ready is Ready's reason and message.
		ready, readyMsg string
	}{
		{"binding overrides sink overrides inventory", nil,
			map[string]string{"snapshot/git-a": "2h0m0s", "snapshot/git-b": "1m0s", "snapshot/git-c": "45s"},
			v1alpha1.ReasonSucceeded, "exporting to 3 of 3 sinks"},
		{"the Scope floor raises every shorter interval, and Ready says so", &v1alpha1.ScopeRules{MinExportInterval: dur(5 * time.Minute)},
			map[string]string{"snapshot/git-a": "2h0m0s", "snapshot/git-b": "5m0s", "snapshot/git-c": "5m0s"},
			v1alpha1.ReasonScopeIntervalRaised, "exporting to 3 of 3 sinks; " +
				"snapshot/git-b: exportMinInterval 1m0s raised to 5m0s by KollectScope team; " +
				"snapshot/git-c: exportMinInterval 45s raised to 5m0s by KollectScope team"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns := namespace(t)
			if tc.scope != nil {
				create(t, &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"}, Spec: v1alpha1.KollectScopeSpec{ScopeRules: *tc.scope}})
			}
			b := gitSink(ns, "git-b")
			b.Spec.ExportMinInterval = dur(time.Minute)
			create(t, gitSink(ns, "git-a"))
			create(t, b)
			create(t, gitSink(ns, "git-c"))
			inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"},
				Spec: v1alpha1.KollectInventorySpec{ExportMinInterval: dur(45 * time.Second), DeletionPolicy: v1alpha1.DeletionDelete,
					SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "git-a", ExportMinInterval: dur(2 * time.Hour)}, {Name: "git-b"}, {Name: "git-c"}}}}
			create(t, inv)
			var cfg busv1.InventoryConfig
			eventually(t, "entry with every binding", func() error {
				if err := configEntry(t, ref(busv1.KindInventory, ns, "inv"), &cfg); err != nil {
					return err
				}
				if d := cmp.Diff(tc.want, intervals(cfg)); d != "" {
					return fmt.Errorf("intervals (-want +got):\n%s", d)
				}
				return nil
			})
			if cfg.DeletionPolicy != busv1.DeletionDelete || cfg.UID != string(inv.UID) {
				t.Fatalf("entry = %+v", cfg)
			}
			eventually(t, "Ready="+tc.ready, func() error {
				if err := get(t, inv); err != nil {
					return err
				}
				c := meta.FindStatusCondition(inv.Status.Conditions, v1alpha1.ConditionReady)
				want := metav1.Condition{Type: v1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: tc.ready, Message: tc.readyMsg}
				if c == nil {
					return fmt.Errorf("no Ready condition")
				}
				got := metav1.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}
				if d := cmp.Diff(want, got); d != "" {
					return fmt.Errorf("Ready (-want +got):\n%s", d)
				}
				return nil
			})
		})
	}
}

// TestInventoryIntervalBelowTheOperatorMinimumIsRaised: an interval below
// control's --min-export-interval (10s here) that reached the API server
// (webhook off, or an object older than the minimum) is raised to it at
// reconcile, and Ready says so as for a Scope's floor; 0 (exports on change
// only) stays 0.
func TestInventoryIntervalBelowTheOperatorMinimumIsRaised(t *testing.T) {
	ns := namespace(t)
	create(t, gitSink(ns, "git-a"))
	create(t, gitSink(ns, "git-b"))
	inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"},
		Spec: v1alpha1.KollectInventorySpec{ExportMinInterval: dur(0),
			SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "git-a", ExportMinInterval: dur(time.Millisecond)}, {Name: "git-b"}}}}
	create(t, inv)
	eventually(t, "entry with the raised interval", func() error {
		var cfg busv1.InventoryConfig
		if err := configEntry(t, ref(busv1.KindInventory, ns, "inv"), &cfg); err != nil {
			return err
		}
		if d := cmp.Diff(map[string]string{"snapshot/git-a": "10s", "snapshot/git-b": "0s"}, intervals(cfg)); d != "" {
			return fmt.Errorf("intervals (-want +got):\n%s", d)
		}
		return nil
	})
	eventually(t, "Ready=ScopeIntervalRaised", func() error {
		if err := get(t, inv); err != nil {
			return err
		}
		c := meta.FindStatusCondition(inv.Status.Conditions, v1alpha1.ConditionReady)
		if c == nil {
			return fmt.Errorf("no Ready condition")
		}
		want := metav1.Condition{Type: v1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: v1alpha1.ReasonScopeIntervalRaised,
			Message: "exporting to 2 of 2 sinks; snapshot/git-a: exportMinInterval 1ms raised to 10s by the operator's minimum (--min-export-interval)"}
		got := metav1.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}
		if d := cmp.Diff(want, got); d != "" {
			return fmt.Errorf("Ready (-want +got):\n%s", d)
		}
		return nil
	})
}

func TestInventoryHistoryIsCompiledAndCappedByAScopeCreatedLater(t *testing.T) {
	ns := namespace(t)
	inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"},
		Spec: v1alpha1.KollectInventorySpec{History: &v1alpha1.History{Revisions: ptr.To[int32](100), MaxAge: dur(720 * time.Hour)}}}
	create(t, inv)
	asked := busv1.HistoryLimits{Revisions: 100, MaxAge: busv1.Duration{Duration: 720 * time.Hour}}
	entry := func(want busv1.InventoryConfig) func() error {
		return func() error {
			var cfg busv1.InventoryConfig
			if err := configEntry(t, ref(busv1.KindInventory, ns, "inv"), &cfg); err != nil {
				return err
			}
			got := busv1.InventoryConfig{History: cfg.History, HistoryCap: cfg.HistoryCap}
			if d := cmp.Diff(want, got); d != "" {
				return fmt.Errorf("history (-want +got):\n%s", d)
			}
			return nil
		}
	}
	// The operator's cap (--history-max-*: 100 revisions, 720h, 256Mi) is
	// always in the entry; the history asks no more than it.
	operator := busv1.HistoryLimits{Revisions: 100, MaxAge: busv1.Duration{Duration: 720 * time.Hour}, MaxBytes: 256 << 20}
	eventually(t, "the asked history and the operator's cap in the entry", entry(busv1.InventoryConfig{History: asked, HistoryCap: operator}))
	create(t, &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"},
		Spec: v1alpha1.KollectScopeSpec{ScopeRules: v1alpha1.ScopeRules{MaxHistory: &v1alpha1.History{Revisions: ptr.To[int32](50)}}}})
	eventually(t, "the Scope's cap in the entry", entry(busv1.InventoryConfig{History: asked,
		HistoryCap: busv1.HistoryLimits{Revisions: 50, MaxAge: operator.MaxAge, MaxBytes: operator.MaxBytes}}))
	eventually(t, "Ready=ScopeHistoryCapped", func() error {
		if err := get(t, inv); err != nil {
			return err
		}
		c := meta.FindStatusCondition(inv.Status.Conditions, v1alpha1.ConditionReady)
		want := "exporting to 0 of 0 sinks; spec.history.revisions: 100 is above the cap 50 of KollectScope team"
		if c == nil || c.Reason != v1alpha1.ReasonScopeHistoryCapped || c.Message != want {
			return fmt.Errorf("Ready = %+v, want %s: %s", c, v1alpha1.ReasonScopeHistoryCapped, want)
		}
		return nil
	})
}

func TestInventoryBindingsDenied(t *testing.T) {
	ns := namespace(t)
	create(t, gitSink(ns, "git-a"))
	create(t, gitSink(ns, "git-b"))
	inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"},
		Spec: v1alpha1.KollectInventorySpec{SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "git-a"}, {Name: "git-b"}, {Name: "missing"}}}}
	create(t, inv)
	conds := func() []metav1.Condition { return inv.Status.Conditions }
	eventually(t, "SinkNotFound degrades", func() error {
		return hasCondition(t, inv, conds, v1alpha1.ConditionDegraded, metav1.ConditionTrue, v1alpha1.ReasonSinkNotFound)
	})
	t.Run("a Scope created later that does not allow a bound sink unbinds it and degrades the inventory", func(t *testing.T) {
		create(t, &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"},
			Spec: v1alpha1.KollectScopeSpec{ScopeRules: v1alpha1.ScopeRules{SnapshotSinkRefs: []string{"git-a", "missing"}}}})
		eventually(t, "git-b unbound", func() error {
			var cfg busv1.InventoryConfig
			if err := configEntry(t, ref(busv1.KindInventory, ns, "inv"), &cfg); err != nil {
				return err
			}
			if d := cmp.Diff(map[string]string{"snapshot/git-a": "30s"}, intervals(cfg)); d != "" {
				return fmt.Errorf("bindings (-want +got):\n%s", d)
			}
			return nil
		})
		eventually(t, "binding state", func() error {
			if err := get(t, inv); err != nil {
				return err
			}
			got := map[string]string{}
			for _, e := range inv.Status.SinkExports {
				got[e.Name] = e.Conditions[0].Reason
			}
			want := map[string]string{"snapshot/git-a": v1alpha1.ReasonProgressing,
				"snapshot/git-b": v1alpha1.ReasonScopeSinkDenied, "snapshot/missing": v1alpha1.ReasonSinkNotFound}
			if d := cmp.Diff(want, got); d != "" {
				return fmt.Errorf("sinkExports reasons (-want +got):\n%s", d)
			}
			return nil
		})
	})
}

func TestInventoryDeletion(t *testing.T) {
	ns := namespace(t)
	inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"}}
	create(t, inv)
	eventually(t, "entry and finalizer", func() error {
		var cfg busv1.InventoryConfig
		if err := configEntry(t, ref(busv1.KindInventory, ns, "inv"), &cfg); err != nil {
			return err
		}
		if err := get(t, inv); err != nil || len(inv.Finalizers) == 0 {
			return fmt.Errorf("no finalizer yet (%v)", err)
		}
		return nil
	})
	if err := shared.kube.Client.Delete(t.Context(), inv); err != nil {
		t.Fatal(err)
	}
	eventually(t, "inventory gone", func() error {
		if err := get(t, inv); err == nil {
			return fmt.Errorf("inventory still exists")
		}
		return nil
	})
	if err := noEntry(t, ref(busv1.KindInventory, ns, "inv")); err != nil {
		t.Fatalf("the inventory is gone but: %v", err)
	}
}
