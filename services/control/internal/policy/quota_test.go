package policy_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/policy"
)

func TestQuotaLimits(t *testing.T) {
	operator := policy.Quotas{Inventories: 50, Bindings: 200, Replays: 4}
	tests := []struct {
		name     string
		operator policy.Quotas
		scope    *v1alpha1.ScopeQuotas
		want     [3]policy.Limit
	}{
		{"without a Scope, the operator's flags", operator, nil, [3]policy.Limit{
			{50, "--max-inventories-per-namespace"}, {200, "--max-bindings-per-namespace"}, {4, "--max-replays-per-namespace"}}},
		{"a Scope without quotas keeps the operator's", operator, &v1alpha1.ScopeQuotas{}, [3]policy.Limit{
			{50, "--max-inventories-per-namespace"}, {200, "--max-bindings-per-namespace"}, {4, "--max-replays-per-namespace"}}},
		{"a Scope tightens", operator, &v1alpha1.ScopeQuotas{MaxInventories: ptr.To[int32](2), MaxBindings: ptr.To[int32](3), MaxReplays: ptr.To[int32](1)},
			[3]policy.Limit{{2, "maxInventories of KollectScope team"}, {3, "maxBindings of KollectScope team"}, {1, "maxReplays of KollectScope team"}}},
		{"a Scope above the operator's is ignored", operator, &v1alpha1.ScopeQuotas{MaxInventories: ptr.To[int32](500), MaxBindings: ptr.To[int32](201), MaxReplays: ptr.To[int32](4)},
			[3]policy.Limit{{50, "--max-inventories-per-namespace"}, {200, "--max-bindings-per-namespace"}, {4, "maxReplays of KollectScope team"}}},
		{"a Scope limits what the operator leaves unlimited", policy.Quotas{}, &v1alpha1.ScopeQuotas{MaxInventories: ptr.To[int32](500)},
			[3]policy.Limit{{500, "maxInventories of KollectScope team"}, {}, {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := [3]policy.Limit{tt.operator.InventoryLimit(tt.scope, "KollectScope team"),
				tt.operator.BindingLimit(tt.scope, "KollectScope team"), tt.operator.ReplayLimit(tt.scope, "KollectScope team")}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("limits (-want +got):\n%s", diff)
			}
		})
	}
	if l := (policy.Limit{}); !l.Allows(1 << 40) {
		t.Error("no limit refuses a usage")
	}
	if l := (policy.Limit{Max: 2}); !l.Allows(2) || l.Allows(3) {
		t.Error("a limit of 2 must allow 2 and refuse 3")
	}
}

func TestNamespaceQuota(t *testing.T) {
	if got := policy.NamespaceQuota(nil); got != (busv1.NamespaceQuota{}) {
		t.Errorf("NamespaceQuota(nil) = %+v, want none", got)
	}
	q := resource.MustParse("1Gi")
	got := policy.NamespaceQuota(&v1alpha1.ScopeQuotas{MaxNamespaceBusBytes: &q, MaxNamespaceRevisions: ptr.To[int64](300)})
	if want := (busv1.NamespaceQuota{BusBytes: 1 << 30, HistoryRevisions: 300}); got != want {
		t.Errorf("NamespaceQuota = %+v, want %+v", got, want)
	}
}
