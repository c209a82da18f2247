package collector_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// limitedRole may list and watch Deployments, Namespaces and CRDs, and not
// ConfigMaps.
func limitedRole() *rbacv1.ClusterRole {
	watch := []string{"get", "list", "watch"}
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "limited-collector"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: watch},
		{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: watch},
		{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: watch},
	}}
}

func TestForbiddenDegradesOnlyTheTargetThatNeedsIt(t *testing.T) {
	e := newEnv(t)
	user, err := kube.Env.AddUser(envtest.User{Name: "limited-collector"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	role := limitedRole()
	create(t, role)
	t.Cleanup(func() { _ = kube.Client.Delete(context.Background(), role) })
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "limited-collector"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "limited-collector"}}}
	create(t, binding)
	t.Cleanup(func() { _ = kube.Client.Delete(context.Background(), binding) })

	namespace(t, "forbidden", nil)
	deploys := targetConfig(t, "forbidden", "deploys", 1, imageProfile("forbidden"), in("forbidden"))
	configs := targetConfig(t, "forbidden", "configs", 1,
		profile("forbidden", "configs", configMapGVK, attr("mode", "$.data.mode")), in("forbidden"))
	d := deployment("forbidden", "app", "app:1", 1, nil)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "forbidden", Name: "settings"},
		Data: map[string]string{"mode": "fast"}}
	create(t, d)
	create(t, cm)
	e.start(as(user.Config()))
	e.put(deploys)
	e.put(configs)

	e.waitRows("Deployments are collected while ConfigMaps are forbidden", images(t, deploys, d))
	e.waitStatus(deploys, busv1.TargetStatus{CollectedCount: 1, MatchedNamespaces: []string{"forbidden"}})
	e.waitStatus(configs, busv1.TargetStatus{MatchedNamespaces: []string{"forbidden"}, Outcome: busv1.Outcome{
		Reason:  v1alpha1.ReasonForbidden,
		Message: "RBAC denies the collector list and watch of configmaps in namespace forbidden"}})

	update(t, role, func() {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"},
			Verbs: []string{"get", "list", "watch"}})
	})
	e.waitRows("ConfigMaps are collected once RBAC allows them",
		images(t, deploys, d), row(t, configs, cm, map[string]any{"mode": "fast"}))
	e.waitStatus(configs, busv1.TargetStatus{CollectedCount: 1, MatchedNamespaces: []string{"forbidden"}})
}
