package tenancy

import (
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/query/querytest"
)

// historyRow is the value a row of team-a's inventory holds, read from a
// ConfigMap team-b granted team-a's ServiceAccount: data that seeing the
// inventory object does not show.
var historyRow = canary("HISTORY")

// historyVectors read an inventory's rows through the history API (the
// query service behind its own aggregating kube-apiserver and bus: the
// system of the suite serves no query API) as a user holding what the
// chart's aggregated view role gives: the query resources and get on the
// inventory, not its data subresource.
func historyVectors() []vector {
	return []vector{
		{"view lists an inventory's revisions but reads none of its rows, diffs or timelines", func(t *testing.T) {
			e := querytest.Start(t)
			p, err := querytest.NewPublisher(t.Context(), e.NATS.JS, busv1.NamespacedName{Namespace: teamA, Name: "granted"})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range []string{"before", historyRow} {
				row := busv1.Row{TargetNamespace: teamA, TargetName: "granted", Namespace: teamB, Name: "shared", UID: "s",
					Version: "v1", Kind: "ConfigMap", Attributes: map[string]any{"value": v}}
				if _, err := p.Publish(t.Context(), []busv1.Row{row}, time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC)); err != nil {
					t.Fatal(err)
				}
			}
			bindView(t, e, "viewer")
			base := "/apis/" + queryv1.GroupVersion.String() + "/namespaces/" + teamA
			// The API server's RBAC follows the new binding asynchronously.
			testenv.Eventually(t, refusalWait, "viewer gets team-a's history", func() error {
				_, _, err := querytest.Get(t.Context(), e.As("viewer"), base+"/inventoryhistories/granted")
				return err
			})
			for _, path := range []string{"/inventoryhistories/granted/rows", "/inventoryhistories/granted/diff?from=1&to=2",
				"/inventoryhistories/granted/timeline?uid=s"} {
				body, code, _ := querytest.Get(t.Context(), e.As("viewer"), base+path)
				if code != http.StatusForbidden {
					t.Errorf("viewer GET %s: status %d, want 403", path, code)
				}
				if strings.Contains(string(body), historyRow) {
					t.Errorf("viewer GET %s: the answer holds team-b's value", path)
				}
			}
		}},
	}
}

// bindView gives user in team-a what the chart aggregates into view for
// the history API: the query resources, and get, list and watch on the
// namespaced Kollect kinds.
func bindView(t *testing.T, e *querytest.Env, user string) {
	t.Helper()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "kollect-view", Namespace: teamA}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{queryv1.Group}, Verbs: []string{"get", "list"}, Resources: []string{queryv1.ResourceRevisions,
			queryv1.ResourceHistories, "inventoryhistories/rows", "inventoryhistories/diff", "inventoryhistories/timeline"}},
		{APIGroups: []string{"kollect.dev"}, Verbs: []string{"get", "list", "watch"}, Resources: []string{"kollectinventories"}},
	}}
	for _, o := range []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: teamA}}, role,
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "kollect-view", Namespace: teamA},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "kollect-view"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: user}}},
	} {
		if err := e.Kube.Client.Create(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
}
