package policy_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/policy"
)

func TestHistoryLimits(t *testing.T) {
	q := resource.MustParse("2Gi")
	tests := []struct {
		name string
		in   *v1alpha1.History
		want busv1.HistoryLimits
	}{
		{"no history sets no limit", nil, busv1.HistoryLimits{}},
		{"an empty history sets no limit", &v1alpha1.History{}, busv1.HistoryLimits{}},
		{"every field converts", &v1alpha1.History{Revisions: ptr.To[int32](100),
			MaxAge: &metav1.Duration{Duration: 48 * time.Hour}, MaxBytes: &q},
			busv1.HistoryLimits{Revisions: 100, MaxAge: busv1.Duration{Duration: 48 * time.Hour}, MaxBytes: 2 << 30}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, policy.HistoryLimits(tt.in)); diff != "" {
				t.Errorf("HistoryLimits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHistoryCeiling(t *testing.T) {
	day := busv1.Duration{Duration: 24 * time.Hour}
	operator := policy.Quotas{History: busv1.HistoryLimits{Revisions: 100, MaxAge: busv1.Duration{Duration: 720 * time.Hour}, MaxBytes: 256 << 20}}
	scope := &v1alpha1.ScopeRules{MaxHistory: &v1alpha1.History{Revisions: ptr.To[int32](50), MaxAge: &metav1.Duration{Duration: 24 * time.Hour}}}
	loose := &v1alpha1.ScopeRules{MaxHistory: &v1alpha1.History{Revisions: ptr.To[int32](1000)}}
	tests := []struct {
		name     string
		operator policy.Quotas
		rules    *v1alpha1.ScopeRules
		asked    busv1.HistoryLimits
		cap      busv1.HistoryLimits
		over     []string
	}{
		{"no cap allows anything", policy.Quotas{}, nil, busv1.HistoryLimits{Revisions: 1000}, busv1.HistoryLimits{}, nil},
		{"nothing asked is never above a cap", operator, scope, busv1.HistoryLimits{},
			busv1.HistoryLimits{Revisions: 50, MaxAge: day, MaxBytes: 256 << 20}, nil},
		{"values at the cap are allowed", operator, nil, operator.History, operator.History, nil},
		{"the operator's cap, without a Scope, names each flag", operator, nil,
			busv1.HistoryLimits{Revisions: 101, MaxAge: busv1.Duration{Duration: 2160 * time.Hour}, MaxBytes: 1 << 30}, operator.History, []string{
				"spec.history.revisions: 101 is above the cap 100 of the operator (--history-max-revisions)",
				"spec.history.maxAge: 2160h0m0s is above the cap 720h0m0s of the operator (--history-max-age)",
				"spec.history.maxBytes: 1073741824 is above the cap 268435456 of the operator (--history-max-bytes)",
			}},
		{"a Scope tightens field by field; the operator keeps the fields it leaves", operator, scope,
			busv1.HistoryLimits{Revisions: 51, MaxAge: busv1.Duration{Duration: 48 * time.Hour}, MaxBytes: 512 << 20},
			busv1.HistoryLimits{Revisions: 50, MaxAge: day, MaxBytes: 256 << 20}, []string{
				"spec.history.revisions: 51 is above the cap 50 of KollectScope team",
				"spec.history.maxAge: 48h0m0s is above the cap 24h0m0s of KollectScope team",
				"spec.history.maxBytes: 536870912 is above the cap 268435456 of the operator (--history-max-bytes)",
			}},
		{"a Scope above the operator's cap is ignored", operator, loose, busv1.HistoryLimits{Revisions: 500}, operator.History,
			[]string{"spec.history.revisions: 500 is above the cap 100 of the operator (--history-max-revisions)"}},
		{"a Scope caps what the operator leaves unlimited", policy.Quotas{}, scope, busv1.HistoryLimits{Revisions: 51},
			busv1.HistoryLimits{Revisions: 50, MaxAge: day}, []string{"spec.history.revisions: 51 is above the cap 50 of KollectScope team"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.operator.HistoryCeiling(tt.rules, "KollectScope team")
			if diff := cmp.Diff(tt.cap, c.Cap); diff != "" {
				t.Errorf("Cap (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.over, c.Over(tt.asked)); diff != "" {
				t.Errorf("Over (-want +got):\n%s", diff)
			}
		})
	}
}
