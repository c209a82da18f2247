package control_test

import (
	"strconv"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// grantReplays lets the ServiceAccount replays of ns act as (kollect, the
// default) get resource (kollectinventories in ns, or one
// kollectclusterinventory when name is set), and returns a func that
// revokes the grant.
func grantReplays(t *testing.T, ns, resource, name string) func() {
	t.Helper()
	rule := rbacv1.PolicyRule{APIGroups: []string{"kollect.dev"}, Resources: []string{resource}, Verbs: []string{"get"}}
	sa := []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: "kollect"}}
	if name == "" {
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "replayer"}, Rules: []rbacv1.PolicyRule{rule}}
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "replayer"}, Subjects: sa,
			RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "replayer"}}
		create(t, role)
		create(t, rb)
		return func() { remove(t, rb) }
	}
	rule.ResourceNames = []string{name}
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ns + "-replayer"}, Rules: []rbacv1.PolicyRule{rule}}
	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ns + "-replayer"}, Subjects: sa,
		RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: cr.Name}}
	create(t, cr)
	create(t, crb)
	t.Cleanup(func() {
		_ = shared.kube.Client.Delete(t.Context(), cr)
		_ = shared.kube.Client.Delete(t.Context(), crb)
	})
	return func() { remove(t, crb) }
}

// TestAReplayRunsOnlyWhileItsNamespacesServiceAccountMayGetTheInventory is
// F14 of SECURITY-3: the get rule admission checks for the requester is
// checked again at reconcile (here without the webhook), for the identity
// the replay acts as, and a denied replay's status is the same whether the
// inventory exists or not.
func TestAReplayRunsOnlyWhileItsNamespacesServiceAccountMayGetTheInventory(t *testing.T) {
	ns := namespace(t)
	create(t, gitSink(ns, "git-a"))
	ci := &v1alpha1.KollectClusterInventory{ObjectMeta: metav1.ObjectMeta{Name: ns + "-fleet"},
		Spec: v1alpha1.KollectClusterInventorySpec{TargetRefs: []string{"any"}, SinkNamespace: ns,
			SnapshotSinkRefs: []v1alpha1.ClusterSinkBinding{{Name: "git-a"}}}}
	create(t, ci)
	denied := func(inventory string) string {
		return "spec.inventoryRef: ServiceAccount " + ns + "/kollect, as which the replay runs, may not get KollectClusterInventory " +
			inventory + "; grant it get on the inventory to replay it"
	}
	replay := func(name, inventory string) *v1alpha1.KollectReplay {
		rp := replayObj(ns, name, "KollectClusterInventory", inventory, "snapshot/"+ns+"/git-a")
		create(t, rp)
		return rp
	}
	noRequest := func(rp *v1alpha1.KollectReplay) {
		t.Helper()
		var req busv1.ReplayRequest
		if err := configEntry(t, ref(busv1.KindReplay, ns, rp.Name), &req); err == nil {
			t.Errorf("a denied replay has a request: %+v", req)
		}
	}
	t.Run("a replay of an existing and of a missing inventory is denied alike", func(t *testing.T) {
		for name, inventory := range map[string]string{"existing": ci.Name, "missing": ns + "-nothing"} {
			rp := replay(name, inventory)
			eventually(t, name+": AccessDenied", func() error {
				return readyIs(t, rp, metav1.ConditionFalse, v1alpha1.ReasonAccessDenied, denied(inventory))
			})
			noRequest(rp)
		}
	})
	t.Run("a grant lets it run, and revoking it stops it at the next reconcile", func(t *testing.T) {
		revoke := grantReplays(t, ns, "kollectclusterinventories", ci.Name)
		rp := replay("granted", ci.Name)
		key := ref(busv1.KindReplay, ns, rp.Name)
		eventually(t, "the replay request", func() error {
			var req busv1.ReplayRequest
			return configEntry(t, key, &req)
		})
		revoke()
		eventually(t, "AccessDenied after the revocation", func() error {
			poke(t, rp)
			return readyIs(t, rp, metav1.ConditionFalse, v1alpha1.ReasonAccessDenied, denied(ci.Name))
		})
		eventually(t, "the revoked replay's request deleted", func() error { return noEntry(t, key) })
	})
}

// poke changes a label of rp, so that control reconciles it again.
func poke(t *testing.T, rp *v1alpha1.KollectReplay) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := get(t, rp); err != nil {
			return err
		}
		rp.Labels = map[string]string{"poke": strconv.FormatInt(time.Now().UnixNano(), 10)}
		return shared.kube.Client.Update(t.Context(), rp)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// remove deletes obj.
func remove(t *testing.T, obj client.Object) {
	t.Helper()
	if err := shared.kube.Client.Delete(t.Context(), obj); err != nil {
		t.Fatalf("delete %T %s: %v", obj, obj.GetName(), err)
	}
}
