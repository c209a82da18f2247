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
	if got := policy.HistoryCap(nil); got != (busv1.HistoryLimits{}) {
		t.Errorf("HistoryCap(nil) = %+v, want none", got)
	}
}

func TestHistoryOverCap(t *testing.T) {
	limit := busv1.HistoryLimits{Revisions: 50, MaxAge: busv1.Duration{Duration: 24 * time.Hour}, MaxBytes: 1 << 20}
	tests := []struct {
		name  string
		asked busv1.HistoryLimits
		cap   busv1.HistoryLimits
		want  []string
	}{
		{"nothing asked is never above a cap", busv1.HistoryLimits{}, limit, nil},
		{"no cap allows anything", busv1.HistoryLimits{Revisions: 1000}, busv1.HistoryLimits{}, nil},
		{"values at the cap are allowed", limit, limit, nil},
		{"each field above the cap is named", busv1.HistoryLimits{Revisions: 51,
			MaxAge: busv1.Duration{Duration: 48 * time.Hour}, MaxBytes: 2 << 20}, limit, []string{
			"spec.history.revisions: 51 is above the cap 50",
			"spec.history.maxAge: 48h0m0s is above the cap 24h0m0s",
			"spec.history.maxBytes: 2097152 is above the cap 1048576",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, policy.HistoryOverCap(tt.asked, tt.cap)); diff != "" {
				t.Errorf("HistoryOverCap (-want +got):\n%s", diff)
			}
		})
	}
}
