package control_test

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
)

// replayOnlyClient returns a client for a user who may create
// KollectReplays in ns and nothing else.
func replayOnlyClient(t *testing.T, ns string) client.Client {
	t.Helper()
	return userClient(t, ns, "replayer-"+ns, nil, []rbacv1.PolicyRule{
		{APIGroups: []string{"kollect.dev"}, Resources: []string{"kollectreplays"}, Verbs: []string{"create"}},
	})
}

func replayObj(ns, name, kind, inventory, sink string) *v1alpha1.KollectReplay {
	return &v1alpha1.KollectReplay{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1alpha1.KollectReplaySpec{InventoryRef: v1alpha1.ReplayInventoryRef{Kind: kind, Name: inventory}, Sink: sink}}
}

// A replay re-sends an inventory's past data: only a user who may get the
// inventory may create one, whatever create on kollectreplays allows.
func TestWebhookAdmitsAReplayOnlyFromAUserWhoMayGetTheInventory(t *testing.T) {
	ns := webhookNamespace(t)
	only := replayOnlyClient(t, ns)
	team := teamClient(t, ns)
	refused(t, "a replay by a user who may not get the inventory", func() error {
		return only.Create(t.Context(), replayObj(ns, "r1", "", "apps", "database/warehouse"))
	}, "spec.inventoryRef: replayer-"+ns+" may not get KollectInventory "+ns+"/apps")
	refused(t, "a cluster inventory's replay by a user who may not get it", func() error {
		return team.Create(t.Context(), replayObj(ns, "r2", "KollectClusterInventory", "fleet", "database/"+ns+"/warehouse"))
	}, "spec.inventoryRef: dev-"+ns+" may not get KollectClusterInventory fleet")
	if err := team.Create(t.Context(), replayObj(ns, "r3", "", "apps", "database/warehouse")); err != nil {
		t.Fatalf("a user who may get the inventory was refused: %v", err)
	}
}
