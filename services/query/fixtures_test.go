package query_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/services/query/querytest"
)

// day is the time of the n-th day of the change sequence.
func day(n int) time.Time {
	return time.Date(2026, 1, 4, 9, 0, 0, 0, time.UTC).Add(time.Duration(n) * 24 * time.Hour)
}

func row(name, kind, uid string, attrs map[string]any) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: "workloads", Namespace: "team-a", Name: name, UID: uid,
		Group: "apps", Version: "v1", Kind: kind, Attributes: attrs}
}

// states are the known states of team-a/web, revision i+1 on day i+1:
// api's image changes on days 2 and 4 and it gains replicas on day 3,
// cache appears on day 2, web disappears on day 3.
var states = [][]busv1.Row{
	{row("api", "Deployment", "a", map[string]any{"image": "api:1"}), row("web", "Deployment", "w", map[string]any{"image": "web:1"}),
		row("db", "StatefulSet", "d", map[string]any{"image": "pg:17"})},
	{row("api", "Deployment", "a", map[string]any{"image": "api:2"}), row("web", "Deployment", "w", map[string]any{"image": "web:1"}),
		row("db", "StatefulSet", "d", map[string]any{"image": "pg:17"}), row("cache", "Deployment", "c", map[string]any{"image": "valkey:8"})},
	{row("api", "Deployment", "a", map[string]any{"image": "api:2", "replicas": float64(3)}),
		row("db", "StatefulSet", "d", map[string]any{"image": "pg:17"}), row("cache", "Deployment", "c", map[string]any{"image": "valkey:8"})},
	{row("api", "Deployment", "a", map[string]any{"image": "api:3", "replicas": float64(3)}),
		row("db", "StatefulSet", "d", map[string]any{"image": "pg:17"}), row("cache", "Deployment", "c", map[string]any{"image": "valkey:8"})},
}

// publishHistory publishes states as team-a/web's history (with a periodic
// re-export of revision 1, which is not a revision of its own) and one
// revision of team-a/secret.
func publishHistory(ctx context.Context, t *testing.T, e *querytest.Env) []*busv1.SnapshotEvent {
	t.Helper()
	p, err := querytest.NewPublisher(ctx, e.NATS.JS, busv1.NamespacedName{Namespace: "team-a", Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	var evs []*busv1.SnapshotEvent
	for i, rows := range states {
		ev, err := p.Publish(ctx, rows, day(i+1))
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
		if i == 0 {
			if err := p.Periodic(ctx, day(1).Add(12*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
	}
	secret, err := querytest.NewPublisher(ctx, e.NATS.JS, busv1.NamespacedName{Namespace: "team-a", Name: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := secret.Publish(ctx, states[0], day(1)); err != nil {
		t.Fatal(err)
	}
	return evs
}

// grant gives alice, bob and carol the query resources in team-a; alice
// get on the KollectInventory web and on its data; carol only get on web,
// as the aggregated view role gives it.
func grant(ctx context.Context, t *testing.T, e *querytest.Env) {
	t.Helper()
	reader := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "history-reader"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{queryv1.Group}, Verbs: []string{"get", "list"},
		Resources: []string{"inventoryrevisions", "inventoryhistories", "inventoryhistories/rows", "inventoryhistories/diff", "inventoryhistories/timeline"},
	}}}
	web := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "web-inventory", Namespace: "team-a"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"kollect.dev"}, Resources: []string{"kollectinventories"}, ResourceNames: []string{"web"}, Verbs: []string{"get"},
	}}}
	data := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "web-data", Namespace: "team-a"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"kollect.dev"}, Resources: []string{"kollectinventories/" + queryv1.InventoryDataSubresource},
		ResourceNames: []string{"web"}, Verbs: []string{"get"},
	}}}
	for _, o := range []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, reader, web, data,
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "history-readers", Namespace: "team-a"},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "history-reader"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "alice"}, {Kind: rbacv1.UserKind, Name: "bob"},
				{Kind: rbacv1.UserKind, Name: "carol"}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "web-inventory", Namespace: "team-a"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "web-inventory"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "alice"}, {Kind: rbacv1.UserKind, Name: "carol"}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "web-data", Namespace: "team-a"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "web-data"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "alice"}}},
	} {
		if err := e.Kube.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
}
