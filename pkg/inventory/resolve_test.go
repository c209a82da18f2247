package inventory

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/selection"
)

func TestResolveCluster(t *testing.T) {
	targets := []metav1.ObjectMeta{
		{Name: "deploys", Labels: map[string]string{"tier": "platform"}},
		{Name: "certs", Labels: map[string]string{"tier": "platform"}},
		{Name: "scratch"},
	}
	namespaces := []selection.Namespace{
		{Name: "prod-a", Labels: map[string]string{"env": "prod"}},
		{Name: "prod-b", Labels: map[string]string{"env": "prod"}},
		{Name: "dev"},
	}
	platform := &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "platform"}}
	prod := &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	tests := []struct {
		name string
		spec v1alpha1.KollectClusterInventorySpec
		want Resolved
	}{
		{"targetRefs alone name the ClusterTargets and every namespace counts",
			v1alpha1.KollectClusterInventorySpec{TargetRefs: []string{"scratch"}},
			Resolved{TargetRefs: []string{"scratch"}, Dedupe: busv1.DedupeKeepAll}},
		{"targetRefs and targetSelector add up, sorted and without duplicates",
			v1alpha1.KollectClusterInventorySpec{TargetRefs: []string{"scratch", "certs"}, TargetSelector: platform},
			Resolved{TargetRefs: []string{"certs", "deploys", "scratch"}, Dedupe: busv1.DedupeKeepAll}},
		{"namespaces and namespaceSelector add up",
			v1alpha1.KollectClusterInventorySpec{TargetRefs: []string{"deploys"}, Namespaces: []string{"dev"}, NamespaceSelector: prod},
			Resolved{TargetRefs: []string{"deploys"}, Namespaces: []string{"dev", "prod-a", "prod-b"}, Dedupe: busv1.DedupeKeepAll}},
		{"a namespace selector matching nothing selects no namespace rather than all",
			v1alpha1.KollectClusterInventorySpec{TargetRefs: []string{"deploys"}, NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "qa"}}},
			Resolved{TargetRefs: []string{"deploys"}, Namespaces: []string{}, Dedupe: busv1.DedupeKeepAll}},
		{"byResourceUID carries over",
			v1alpha1.KollectClusterInventorySpec{TargetSelector: platform, Dedupe: v1alpha1.DedupeByResourceUID},
			Resolved{TargetRefs: []string{"certs", "deploys"}, Dedupe: busv1.DedupeByResourceUID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveCluster(tt.spec, targets, namespaces)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ResolveCluster (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("an invalid selector names the field", func(t *testing.T) {
		_, err := ResolveCluster(v1alpha1.KollectClusterInventorySpec{TargetSelector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Nope"}}}}, targets, namespaces)
		if err == nil || err.Error()[:19] != "spec.targetSelector" {
			t.Errorf("err = %v, want one naming spec.targetSelector", err)
		}
	})
}
