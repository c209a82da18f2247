package access

import (
	"fmt"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/pkg/testenv"
)

// TestRBACAgreesWithTheAPIServer builds roles and bindings of every shape
// RBAC knows (wildcards, resource names, subresources, groups, a
// ServiceAccount subject without a namespace, a ClusterRole bound in a
// namespace, an aggregated ClusterRole, a binding to a missing role) on a
// real API server, then asks the same questions of RBAC (from an informer
// cache) and of SubjectAccessReviews, the API server's own RBAC
// authorizer: every answer must agree, and RBAC must say yes and no
// somewhere. Then it edits a role in place and deletes a binding, and the
// answers must agree again.
func TestRBACAgreesWithTheAPIServer(t *testing.T) {
	kube := testenv.StartBareKube(t)
	ctx := t.Context()
	c := kube.Client
	mk := func(objs ...client.Object) {
		t.Helper()
		for _, o := range objs {
			if err := c.Create(ctx, o); err != nil {
				t.Fatalf("create %T %s: %v", o, o.GetName(), err)
			}
		}
	}
	ref := func(kind, name string) rbacv1.RoleRef {
		return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: name}
	}
	sa := func(ns, name string) rbacv1.Subject {
		return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}
	}
	group := func(name string) rbacv1.Subject {
		return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name}
	}
	rule := func(groups, resources, verbs []string, names ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: groups, Resources: resources, Verbs: verbs, ResourceNames: names}
	}
	for _, ns := range []string{"a", "b", "c"} {
		mk(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	mk(
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "cm-reader"},
			Rules: []rbacv1.PolicyRule{rule([]string{""}, []string{"configmaps"}, []string{"get", "list"})}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "everything-apps"},
			Rules: []rbacv1.PolicyRule{rule([]string{"apps"}, []string{"*"}, []string{"*"})}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "named-secret"},
			Rules: []rbacv1.PolicyRule{rule([]string{""}, []string{"secrets"}, []string{"get", "list"}, "db")}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "any-status"},
			Rules: []rbacv1.PolicyRule{rule([]string{"*"}, []string{"*/status"}, []string{"get"})}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "aggregate",
			Labels: map[string]string{"kollect-test/aggregate": "true"}},
			Rules: []rbacv1.PolicyRule{rule([]string{"batch"}, []string{"jobs"}, []string{"list"})}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "aggregated"},
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
				{MatchLabels: map[string]string{"kollect-test/aggregate": "true"}}}}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "pods"},
			Rules: []rbacv1.PolicyRule{rule([]string{""}, []string{"pods", "pods/log"}, []string{"list", "get"})}},
		// ServiceAccount a/one reads ConfigMaps everywhere; a/two in b only
		// (a subject without a namespace is of the binding's: b/two).
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "one-cms"}, RoleRef: ref("ClusterRole", "cm-reader"),
			Subjects: []rbacv1.Subject{sa("a", "one")}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "two-cms"}, RoleRef: ref("ClusterRole", "cm-reader"),
			Subjects: []rbacv1.Subject{sa("a", "two"), {Kind: rbacv1.ServiceAccountKind, Name: "two"}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "pods"}, RoleRef: ref("Role", "pods"),
			Subjects: []rbacv1.Subject{group("system:serviceaccounts:a")}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "c", Name: "apps"}, RoleRef: ref("ClusterRole", "everything-apps"),
			Subjects: []rbacv1.Subject{group("system:serviceaccounts")}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "c", Name: "secret"}, RoleRef: ref("ClusterRole", "named-secret"),
			Subjects: []rbacv1.Subject{sa("a", "one")}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "status"}, RoleRef: ref("ClusterRole", "any-status"),
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "system:serviceaccount:a:two"}}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "aggregated"}, RoleRef: ref("ClusterRole", "aggregated"),
			Subjects: []rbacv1.Subject{group("system:authenticated")}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "missing"}, RoleRef: ref("Role", "missing"),
			Subjects: []rbacv1.Subject{sa("a", "one")}},
	)

	informers, err := cache.New(kube.Config, cache.Options{Scheme: testenv.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := IndexFields(ctx, informers); err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Object{&rbacv1.Role{}, &rbacv1.ClusterRole{}} {
		if _, err := informers.GetInformer(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	go func() { _ = informers.Start(ctx) }()
	if !informers.WaitForCacheSync(ctx) {
		t.Fatal("the informer caches did not sync")
	}
	rbac := RBAC{Reader: informers}
	cs, err := kubernetes.NewForConfig(kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	ids := []Identity{ServiceAccount("a", "one"), ServiceAccount("a", "two"), ServiceAccount("b", "two"), ServiceAccount("c", "three")}
	var questions []authorizationv1.ResourceAttributes
	for _, ns := range []string{"", "a", "b", "c"} {
		for _, q := range []authorizationv1.ResourceAttributes{
			{Verb: "list", Resource: "configmaps"},
			{Verb: "watch", Resource: "configmaps"},
			{Verb: "list", Group: "apps", Resource: "deployments"},
			{Verb: "delete", Group: "apps", Resource: "statefulsets", Name: "web"},
			{Verb: "list", Resource: "secrets"},
			{Verb: "get", Resource: "secrets", Name: "db"},
			{Verb: "get", Resource: "secrets", Name: "other"},
			{Verb: "list", Resource: "pods"},
			{Verb: "get", Resource: "pods", Subresource: "log", Name: "p"},
			{Verb: "get", Resource: "pods", Subresource: "exec", Name: "p"},
			{Verb: "get", Group: "apps", Resource: "deployments", Subresource: "status", Name: "d"},
			{Verb: "list", Group: "batch", Resource: "jobs"},
		} {
			q.Namespace = ns
			questions = append(questions, q)
		}
	}
	agree := func() error {
		yes, no := 0, 0
		for _, id := range ids {
			for _, q := range questions {
				got, err := rbac.Allows(ctx, id, q)
				if err != nil {
					return err
				}
				sar, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
					Spec: authorizationv1.SubjectAccessReviewSpec{User: id.User, Groups: id.Groups, ResourceAttributes: &q}}, metav1.CreateOptions{})
				if err != nil {
					return err
				}
				if got != sar.Status.Allowed {
					return fmt.Errorf("%s %+v: RBAC says %v, the API server %v", id.User, q, got, sar.Status.Allowed)
				}
				if got {
					yes++
				} else {
					no++
				}
			}
		}
		if yes == 0 || no == 0 {
			return fmt.Errorf("%d allowed, %d denied: the cases do not test both answers", yes, no)
		}
		return nil
	}
	// The informers see the objects a moment after they are written, and
	// the aggregation controller fills in the aggregated role.
	testenv.Eventually(t, 30*time.Second, "RBAC agrees with the API server", agree)

	var cr rbacv1.ClusterRole
	if err := c.Get(ctx, client.ObjectKey{Name: "cm-reader"}, &cr); err != nil {
		t.Fatal(err)
	}
	cr.Rules = []rbacv1.PolicyRule{rule([]string{""}, []string{"configmaps"}, []string{"get"})}
	if err := c.Update(ctx, &cr); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "pods"}}); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "RBAC agrees after a role edit and a binding deletion", func() error {
		if ok, err := rbac.Allows(ctx, ServiceAccount("a", "one"), authorizationv1.ResourceAttributes{Verb: "list", Resource: "configmaps"}); err != nil || ok {
			return fmt.Errorf("a/one may still list configmaps (%v)", err)
		}
		return agree()
	})
}
