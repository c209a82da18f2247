package control_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"kollect.dev/kollect/api/v1alpha1"
)

func webhookNamespace(t *testing.T) string {
	t.Helper()
	return labelledNamespace(t, map[string]string{labelWebhook: "true"})
}

// teamClient returns a client for a user who may manage kollect.dev objects
// and list ConfigMaps in ns only.
func teamClient(t *testing.T, ns string) client.Client {
	t.Helper()
	return userClient(t, ns, "dev-"+ns, []string{"team"}, []rbacv1.PolicyRule{
		{APIGroups: []string{"kollect.dev"}, Resources: []string{"*"}, Verbs: []string{"*"}},
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}},
	})
}

// userClient returns a client for user, in groups, bound in ns to a Role
// named after the user with rules.
func userClient(t *testing.T, ns, user string, groups []string, rules []rbacv1.PolicyRule) client.Client {
	t.Helper()
	u, err := shared.kube.Env.ControlPlane.AddUser(envtest.User{Name: user, Groups: groups}, nil)
	if err != nil {
		t.Fatal(err)
	}
	create(t, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user}, Rules: rules})
	create(t, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: user},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: user}}})
	c, err := client.New(u.Config(), client.Options{Scheme: shared.kube.Client.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// refused waits for the webhook to be serving, then expects err to be an
// admission denial containing want.
func refused(t *testing.T, what string, try func() error, want string) {
	t.Helper()
	eventually(t, what, func() error {
		err := try()
		if err == nil {
			return fmt.Errorf("admitted")
		}
		if !strings.Contains(err.Error(), "denied the request") || !strings.Contains(err.Error(), want) {
			return fmt.Errorf("error %q, want a denial containing %q", err, want)
		}
		return nil
	})
}

func TestWebhookCrossNamespaceSelection(t *testing.T) {
	ns := webhookNamespace(t)
	create(t, profile(ns, "cms", configMaps))
	team := teamClient(t, ns)
	tests := []struct {
		name   string
		edit   func(*v1alpha1.KollectTarget)
		denial string
	}{
		{"a user who may not list in another namespace cannot include it",
			func(tg *v1alpha1.KollectTarget) { tg.Spec.IncludedNamespaces = []string{ns, "kube-system"} },
			"may not list configmaps in one of the namespaces listed"},
		{"a user who may not list cluster-wide cannot rely on the all-namespaces default",
			func(tg *v1alpha1.KollectTarget) { tg.Spec.IncludedNamespaces = nil },
			"cluster-wide"},
		{"a user who may not list cluster-wide cannot select namespaces by label",
			func(tg *v1alpha1.KollectTarget) {
				tg.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
			},
			"cluster-wide"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg := targetObj(ns, fmt.Sprintf("t%d", i), "cms")
			tc.edit(tg)
			refused(t, "denial", func() error { return team.Create(t.Context(), tg.DeepCopy()) }, tc.denial)
		})
	}
	t.Run("the same user may collect from its own namespace", func(t *testing.T) {
		if err := team.Create(t.Context(), targetObj(ns, "own", "cms")); err != nil {
			t.Fatalf("own namespace refused: %v", err)
		}
	})
	t.Run("an administrator may select every namespace", func(t *testing.T) {
		tg := targetObj(ns, "all", "cms")
		tg.Spec.IncludedNamespaces = nil
		create(t, tg)
	})
}

func TestWebhookRules(t *testing.T) {
	ns := webhookNamespace(t)
	c := shared.kube.Client
	create(t, &v1alpha1.KollectScope{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team"}, Spec: v1alpha1.KollectScopeSpec{ScopeRules: v1alpha1.ScopeRules{
		AllowedGVKs:       []v1alpha1.AllowedGVK{{Group: "apps", Kind: "Deployment"}},
		SnapshotSinkRefs:  []string{"git"},
		MinExportInterval: dur(10 * time.Minute),
		MaxHistory:        &v1alpha1.History{Revisions: ptr.To[int32](20)},
	}}})
	create(t, profile(ns, "cms", configMaps))
	secretProfile := profile(ns, "secrets", v1alpha1.GroupVersionKind{Version: "v1", Kind: "Secret"})
	secretProfile.Spec.Attributes = []v1alpha1.Attribute{{Name: "pw", Path: "$.data.password"}}
	badCEL := profile(ns, "badcel", configMaps)
	badCEL.Spec.Attributes = []v1alpha1.Attribute{{Name: "x", Path: "cel:object.metadata.name +"}}
	privateSink := gitSink(ns, "git")
	privateSink.Spec.Endpoint = "https://192.168.1.10/inv.git"
	slowSink := gitSink(ns, "git")
	slowSink.Spec.ExportMinInterval = dur(time.Minute)
	// The form is valid (the CRD and Validate admit file://); the operator's
	// file opt-in decides, here as in the exporter (git new_test.go).
	fileSink := gitSink(ns, "git")
	fileSink.Spec.Endpoint = "file:///var/lib/kollect/inv.git"
	tests := []struct {
		name   string
		obj    client.Object
		denial string
	}{
		{"a sink whose interval is below the Scope's floor is refused", slowSink, "spec.exportMinInterval: below"},
		{"a target whose kind the Scope does not allow is refused", targetObj(ns, "cms", "cms"), "does not allow kind"},
		{"a profile reading Secret data without the opt-in is refused", secretProfile, v1alpha1.AnnotationAllowSecretExtraction},
		{"a profile whose CEL does not compile is refused", badCEL, "spec.attributes[0].path"},
		{"a sink on a private address is refused", privateSink, "in-cluster sinks are not allowed"},
		{"a file:// git sink is refused without the operator's file opt-in", fileSink, "does not allow file sinks"},
		{"an inventory binding a sink outside the Scope is refused", &v1alpha1.KollectInventory{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "inv"},
			Spec: v1alpha1.KollectInventorySpec{ExportMinInterval: dur(time.Hour),
				SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "other"}}}}, "does not allow sink other"},
		{"an inventory below the Scope's interval floor is refused", &v1alpha1.KollectInventory{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fast"}}, "floor"},
		{"an inventory keeping more history than the Scope's cap is refused", &v1alpha1.KollectInventory{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "long"},
			Spec: v1alpha1.KollectInventorySpec{ExportMinInterval: dur(time.Hour),
				History: &v1alpha1.History{Revisions: ptr.To[int32](50)}}},
			"spec.history.revisions: 50 is above the cap 20 of KollectScope team"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			refused(t, "denial", func() error { return c.Create(t.Context(), tc.obj.DeepCopyObject().(client.Object)) }, tc.denial)
		})
	}
}

// TestWebhookRefusesIntervalsBelowTheOperatorMinimum: with no Scope, an
// exportMinInterval below control's --min-export-interval (10s in these
// tests) is refused wherever it is set, naming the field, the interval
// asked and the minimum; 0 (exports on change only) is admitted.
func TestWebhookRefusesIntervalsBelowTheOperatorMinimum(t *testing.T) {
	ns := webhookNamespace(t)
	c := shared.kube.Client
	const floor = "the minimum export interval 10s set by the operator (--min-export-interval)"
	fastSink := gitSink(ns, "fast")
	fastSink.Spec.ExportMinInterval = dur(5 * time.Second)
	tests := []struct {
		name   string
		obj    client.Object
		denial string
	}{
		{"an inventory's own interval", &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "own"},
			Spec: v1alpha1.KollectInventorySpec{ExportMinInterval: dur(time.Millisecond)}},
			"spec.exportMinInterval: 1ms is below " + floor},
		{"a binding's interval", &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "binding"},
			Spec: v1alpha1.KollectInventorySpec{EventSinkRefs: []v1alpha1.SinkBinding{{Name: "a"}, {Name: "b", ExportMinInterval: dur(time.Millisecond)}}}},
			"spec.eventSinkRefs[1].exportMinInterval: 1ms is below " + floor},
		{"a sink's interval", fastSink, "spec.exportMinInterval: 5s is below " + floor},
		{"a cluster inventory binding's interval", &v1alpha1.KollectClusterInventory{ObjectMeta: metav1.ObjectMeta{Name: ns + "-fast"},
			Spec: v1alpha1.KollectClusterInventorySpec{SinkNamespace: ns, TargetRefs: []string{"any"},
				SnapshotSinkRefs: []v1alpha1.ClusterSinkBinding{{Name: "git", ExportMinInterval: dur(9 * time.Second)}}}},
			"spec.snapshotSinkRefs[0].exportMinInterval: 9s is below " + floor},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			refused(t, "denial", func() error { return c.Create(t.Context(), tc.obj.DeepCopyObject().(client.Object)) }, tc.denial)
		})
	}
	t.Run("0, exports on change only, and the minimum itself are admitted", func(t *testing.T) {
		create(t, &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "onchange"},
			Spec: v1alpha1.KollectInventorySpec{ExportMinInterval: dur(0),
				SnapshotSinkRefs: []v1alpha1.SinkBinding{{Name: "git", ExportMinInterval: dur(0)}, {Name: "other", ExportMinInterval: dur(10 * time.Second)}}}})
	})
}
