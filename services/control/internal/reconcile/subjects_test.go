package reconcile

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestRulesEqualSeesOnlyWhatARoleGrants(t *testing.T) {
	rule := func(verbs ...string) []rbacv1.PolicyRule {
		return []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: verbs}}
	}
	role := func(labels map[string]string, rules []rbacv1.PolicyRule) *rbacv1.Role {
		return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "r", Labels: labels}, Rules: rules}
	}
	tests := []struct {
		name string
		a, b client.Object
		want bool
	}{
		{"a label added", role(nil, rule("list")), role(map[string]string{"x": "y"}, rule("list")), true},
		{"a verb removed", role(nil, rule("get", "list")), role(nil, rule("get")), false},
		{"a ClusterRole's rules emptied", &rbacv1.ClusterRole{Rules: rule("list")}, &rbacv1.ClusterRole{}, false},
		{"a ClusterRole's annotation changed", &rbacv1.ClusterRole{Rules: rule("list")},
			&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"a": "b"}}, Rules: rule("list")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rulesEqual(tt.a, tt.b); got != tt.want {
				t.Errorf("rulesEqual = %v, want %v", got, tt.want)
			}
		})
	}
}
