package control_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

var (
	secrets = v1alpha1.GroupVersionKind{Version: "v1", Kind: "Secret"}
	nodes   = v1alpha1.GroupVersionKind{Version: "v1", Kind: "Node"}
)

// accessOf waits until the Target's config entry carries the wanted access.
func accessOf(t *testing.T, ns, name string, want busv1.TargetAccess) {
	t.Helper()
	eventually(t, "access of "+ns+"/"+name, func() error {
		var cfg busv1.TargetConfig
		if err := configEntry(t, ref(busv1.KindTarget, ns, name), &cfg); err != nil {
			return err
		}
		got := cfg.Access
		if got == nil || got.ServiceAccount != want.ServiceAccount || got.AllNamespaces != want.AllNamespaces ||
			!slices.Equal(got.Namespaces, want.Namespaces) {
			return fmt.Errorf("access = %+v, want %+v", got, want)
		}
		return nil
	})
}

// condition waits for a Target condition with reason and a message holding want.
func condition(t *testing.T, tg *v1alpha1.KollectTarget, typ string, status metav1.ConditionStatus, reason, want string) {
	t.Helper()
	eventually(t, typ+" "+reason, func() error {
		if err := hasCondition(t, tg, func() []metav1.Condition { return tg.Status.Conditions }, typ, status, reason); err != nil {
			return err
		}
		if msg := meta.FindStatusCondition(tg.Status.Conditions, typ).Message; !strings.Contains(msg, want) {
			return fmt.Errorf("message %q does not name %q", msg, want)
		}
		return nil
	})
}

func TestTargetCollectsOnlyWhereItsServiceAccountMayList(t *testing.T) {
	own, other := namespace(t), namespace(t)
	sa := own + "/kollect"
	create(t, profile(own, "cms", configMaps))
	tg := targetObj(own, "both", "cms")
	tg.Spec.IncludedNamespaces = []string{own, other}
	// The namespace helper granted other's own ServiceAccount, not own's.
	create(t, tg)

	t.Run("a namespace it may not list is left out and named", func(t *testing.T) {
		accessOf(t, own, "both", busv1.TargetAccess{ServiceAccount: sa, Namespaces: []string{own}})
		condition(t, tg, v1alpha1.ConditionDegraded, metav1.ConditionTrue, v1alpha1.ReasonAccessDenied, other)
	})
	rb := grantView(t, other, own, "kollect")
	t.Run("a RoleBinding granted later widens the entry without touching the Target", func(t *testing.T) {
		accessOf(t, own, "both", busv1.TargetAccess{ServiceAccount: sa, Namespaces: []string{own, other}})
	})
	if err := shared.kube.Client.Delete(t.Context(), rb); err != nil {
		t.Fatal(err)
	}
	t.Run("revoking it narrows the entry again", func(t *testing.T) {
		accessOf(t, own, "both", busv1.TargetAccess{ServiceAccount: sa, Namespaces: []string{own}})
	})
}

func TestTargetWithoutAnyAccessFailsClosed(t *testing.T) {
	ns := namespace(t)
	create(t, profile(ns, "secrets", secrets)) // view does not cover Secrets
	tg := targetObj(ns, "secrets", "secrets")
	create(t, tg)
	condition(t, tg, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonAccessDenied, ns+"/kollect may not list secrets")
	eventually(t, "no config entry", func() error { return noEntry(t, ref(busv1.KindTarget, ns, "secrets")) })
}

func TestProfileSwitchedToAKindTheServiceAccountMayNotListStopsTheTarget(t *testing.T) {
	ns := namespace(t)
	prof := profile(ns, "p", configMaps)
	create(t, prof)
	tg := targetObj(ns, "t", "p")
	create(t, tg)
	accessOf(t, ns, "t", busv1.TargetAccess{ServiceAccount: ns + "/kollect", Namespaces: []string{ns}})
	eventually(t, "switch the profile to Secrets", func() error {
		if err := get(t, prof); err != nil {
			return err
		}
		prof.Spec.TargetGVK = secrets
		return shared.kube.Client.Update(t.Context(), prof)
	})
	condition(t, tg, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonAccessDenied, "secrets")
	eventually(t, "config entry removed", func() error { return noEntry(t, ref(busv1.KindTarget, ns, "t")) })
}

func TestTargetCreatedBeforeItsProfileIsReviewedWhenTheProfileArrives(t *testing.T) {
	ns := namespace(t)
	tg := targetObj(ns, "early", "later")
	tg.Spec.IncludedNamespaces = []string{"kube-system"}
	create(t, tg)
	condition(t, tg, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonProfileNotFound, "later")
	create(t, profile(ns, "later", secrets))
	condition(t, tg, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonAccessDenied, "kube-system")
	eventually(t, "no config entry", func() error { return noEntry(t, ref(busv1.KindTarget, ns, "early")) })
}

func TestServiceAccountNameChoosesTheIdentity(t *testing.T) {
	ns := namespace(t)
	create(t, profile(ns, "nodes", nodes))
	tg := targetObj(ns, "nodes", "nodes")
	tg.Spec.IncludedNamespaces = nil
	tg.Spec.ServiceAccountName = "node-reader"
	create(t, sealed(t, tg))
	t.Run("a cluster-scoped kind needs cluster-wide access", func(t *testing.T) {
		condition(t, tg, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonAccessDenied, ns+"/node-reader may not list nodes cluster-wide")
	})
	create(t, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "node-reader-" + ns},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list"}}}})
	create(t, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "node-reader-" + ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "node-reader-" + ns},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "node-reader"}}})
	t.Run("a ClusterRoleBinding for the named ServiceAccount grants every namespace", func(t *testing.T) {
		accessOf(t, ns, "nodes", busv1.TargetAccess{ServiceAccount: ns + "/node-reader", AllNamespaces: true})
	})
}

func TestANewNamespaceIsReviewedBeforeAWideTargetReachesIt(t *testing.T) {
	ns := namespace(t)
	create(t, profile(ns, "cms", configMaps))
	tg := targetObj(ns, "by-label", "cms")
	tg.Spec.IncludedNamespaces = nil
	label := map[string]string{"kollect-access-test": ns}
	tg.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: label}
	create(t, tg)
	accessOf(t, ns, "by-label", busv1.TargetAccess{ServiceAccount: ns + "/kollect", Namespaces: []string{}})
	late := labelledNamespace(t, label) // grants late's own ServiceAccount only
	condition(t, tg, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonAccessDenied, late)
	grantView(t, late, ns, "kollect")
	accessOf(t, ns, "by-label", busv1.TargetAccess{ServiceAccount: ns + "/kollect", Namespaces: []string{late}})
}

// An update that leaves spec alone (control adding or removing its
// finalizer, a label) is admitted whoever makes it: the webhook must never
// lock control out of objects whose spec it would not admit from that user.
func TestWebhookAdmitsSpecUnchangedUpdates(t *testing.T) {
	ns := webhookNamespace(t)
	create(t, profile(ns, "cms", configMaps))
	wide := targetObj(ns, "wide", "cms")
	wide.Spec.IncludedNamespaces = nil
	create(t, wide) // the admin may list ConfigMaps cluster-wide
	team := teamClient(t, ns)
	eventually(t, "label the Target as a user who could not have created it", func() error {
		tg := &v1alpha1.KollectTarget{}
		if err := team.Get(t.Context(), client.ObjectKeyFromObject(wide), tg); err != nil {
			return err
		}
		tg.Labels = map[string]string{"touched": "yes"}
		return team.Update(t.Context(), tg)
	})
	refused(t, "a spec change by the same user", func() error {
		tg := &v1alpha1.KollectTarget{}
		if err := team.Get(t.Context(), client.ObjectKeyFromObject(wide), tg); err != nil {
			return err
		}
		tg.Spec.WatchMode = v1alpha1.WatchModeOptIn
		return team.Update(t.Context(), tg)
	}, "cluster-wide")
}

// TestARoleEditedInPlaceNarrowsAccessAtOnce: a rule removed from a Role,
// or from a ClusterRole a group is bound to, narrows the Targets it
// granted within the test's deadline (30 s), not at the periodic re-check
// (2 minutes): control evaluates RBAC from its caches and watches roles.
func TestARoleEditedInPlaceNarrowsAccessAtOnce(t *testing.T) {
	own, viaRole, viaGroup := namespace(t), namespace(t), namespace(t)
	sa := own + "/kollect"
	cms := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: viaRole, Name: "cms"}, Rules: cms}
	create(t, role)
	create(t, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: viaRole, Name: "cms"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "cms"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: own, Name: "kollect"}}})
	clusterRole := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "cms-" + viaGroup}, Rules: cms}
	create(t, clusterRole)
	create(t, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: viaGroup, Name: "every-serviceaccount"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:serviceaccounts"}}})
	create(t, profile(own, "cms", configMaps))
	tg := targetObj(own, "t", "cms")
	tg.Spec.IncludedNamespaces = []string{own, viaRole, viaGroup}
	create(t, tg)
	all := []string{own, viaRole, viaGroup}
	slices.Sort(all)
	accessOf(t, own, "t", busv1.TargetAccess{ServiceAccount: sa, Namespaces: all})

	edit := func(obj client.Object, set func()) {
		t.Helper()
		eventually(t, "edit "+obj.GetName(), func() error {
			if err := get(t, obj); err != nil {
				return err
			}
			set()
			return shared.kube.Client.Update(t.Context(), obj)
		})
	}
	get := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}}
	edit(role, func() { role.Rules = get })
	t.Run("a Role losing its rule", func(t *testing.T) {
		accessOf(t, own, "t", busv1.TargetAccess{ServiceAccount: sa, Namespaces: slices.DeleteFunc(slices.Clone(all), func(ns string) bool { return ns == viaRole })})
	})
	edit(clusterRole, func() { clusterRole.Rules = get })
	t.Run("a ClusterRole bound to every ServiceAccount losing its rule", func(t *testing.T) {
		accessOf(t, own, "t", busv1.TargetAccess{ServiceAccount: sa, Namespaces: []string{own}})
	})
}
