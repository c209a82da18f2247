package query_test

import (
	"context"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/query/querytest"
)

const clusterBase = "/apis/query.kollect.dev/v1alpha1"

// publishClusterHistory publishes states as the cluster inventory fleet's
// history (a KollectClusterInventory: no namespace on the bus) and one
// revision of the cluster inventory hidden.
func publishClusterHistory(ctx context.Context, t *testing.T, e *querytest.Env) []*busv1.SnapshotEvent {
	t.Helper()
	p, err := querytest.NewPublisher(ctx, e.NATS.JS, busv1.NamespacedName{Name: "fleet"})
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
	}
	hidden, err := querytest.NewPublisher(ctx, e.NATS.JS, busv1.NamespacedName{Name: "hidden"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hidden.Publish(ctx, states[0], day(1)); err != nil {
		t.Fatal(err)
	}
	return evs
}

// grantCluster gives alice and bob the cluster query resources, alice get
// on the KollectClusterInventory fleet and on its data, and bob get on a namespaced
// KollectInventory named fleet only (which is not the cluster inventory).
func grantCluster(ctx context.Context, t *testing.T, e *querytest.Env) {
	t.Helper()
	reader := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "cluster-history-reader"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{queryv1.Group}, Verbs: []string{"get", "list"},
		Resources: []string{"clusterinventoryrevisions", "clusterinventoryhistories", "clusterinventoryhistories/rows",
			"clusterinventoryhistories/diff", "clusterinventoryhistories/timeline"},
	}}}
	fleet := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "fleet-inventory"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"kollect.dev"}, Resources: []string{"kollectclusterinventories", "kollectclusterinventories/" + queryv1.InventoryDataSubresource},
		ResourceNames: []string{"fleet"}, Verbs: []string{"get"},
	}}}
	namespacedFleet := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "namespaced-fleet-inventory"}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{"kollect.dev"}, Resources: []string{"kollectinventories"}, ResourceNames: []string{"fleet"}, Verbs: []string{"get"},
	}}}
	users := func(names ...string) []rbacv1.Subject {
		var out []rbacv1.Subject
		for _, n := range names {
			out = append(out, rbacv1.Subject{Kind: rbacv1.UserKind, Name: n})
		}
		return out
	}
	bind := func(name string, subjects []rbacv1.Subject) *rbacv1.ClusterRoleBinding {
		return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}, Subjects: subjects}
	}
	for _, o := range []client.Object{reader, fleet, namespacedFleet,
		bind("cluster-history-reader", users("alice", "bob")), bind("fleet-inventory", users("alice")),
		bind("namespaced-fleet-inventory", users("bob")),
	} {
		if err := e.Kube.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
}

func clusterLines(items []queryv1.ClusterInventoryRevision) []revisionLine {
	out := make([]queryv1.InventoryRevision, len(items))
	for i := range items {
		out[i] = queryv1.InventoryRevision(items[i])
	}
	return lines(out)
}

func TestClusterInventoryHistoryThroughTheKubernetesAPIServer(t *testing.T) {
	ctx := context.Background()
	e := querytest.Start(t)
	evs := publishClusterHistory(ctx, t, e)
	grantCluster(ctx, t, e)
	alice, bob := e.As("alice"), e.As("bob")
	selector := "labelSelector=" + url.QueryEscape(queryv1.LabelInventory+"=fleet")

	t.Run("discovery lists the cluster-scoped resources and their subresources", func(t *testing.T) {
		var l metav1.APIResourceList
		mustGet(t, alice, clusterBase, &l)
		want := map[string]string{
			"clusterinventoryrevisions": "ClusterInventoryRevision", "clusterinventoryhistories": "ClusterInventoryHistory",
			"clusterinventoryhistories/rows": "", "clusterinventoryhistories/diff": "", "clusterinventoryhistories/timeline": "",
		}
		for _, r := range l.APIResources {
			kind, ok := want[r.Name]
			if !ok {
				continue
			}
			if r.Namespaced {
				t.Errorf("%s is namespaced, want cluster-scoped", r.Name)
			}
			if kind != "" && r.Kind != kind {
				t.Errorf("%s has kind %s, want %s", r.Name, r.Kind, kind)
			}
			delete(want, r.Name)
		}
		if len(want) > 0 {
			t.Errorf("discovery lacks %v", want)
		}
	})

	t.Run("revisions of a cluster inventory, paged", func(t *testing.T) {
		wantRevisions := []revisionLine{
			{"fleet.1", 1, day(1), "change", 3, 3, 0, 0, evs[0].Checksum, "", "fleet"},
			{"fleet.2", 2, day(2), "change", 4, 1, 1, 0, evs[1].Checksum, evs[0].Checksum, "fleet"},
			{"fleet.3", 3, day(3), "change", 3, 0, 1, 1, evs[2].Checksum, evs[1].Checksum, "fleet"},
			{"fleet.4", 4, day(4), "change", 3, 0, 1, 0, evs[3].Checksum, evs[2].Checksum, "fleet"},
		}
		var all []queryv1.ClusterInventoryRevision
		path, pages := clusterBase+"/clusterinventoryrevisions?"+selector, 0
		for path != "" {
			var l queryv1.ClusterInventoryRevisionList
			mustGet(t, alice, path, &l)
			if len(l.Items) > querytest.Limits.Revisions {
				t.Fatalf("a page of %d revisions, the cap is %d", len(l.Items), querytest.Limits.Revisions)
			}
			for _, r := range l.Items {
				if r.Namespace != "" || r.Kind != "ClusterInventoryRevision" {
					t.Errorf("revision %s: namespace %q, kind %q", r.Name, r.Namespace, r.Kind)
				}
			}
			all, pages, path = append(all, l.Items...), pages+1, ""
			if l.Continue != "" {
				path = clusterBase + "/clusterinventoryrevisions?" + selector + "&continue=" + url.QueryEscape(l.Continue)
			}
		}
		if pages != 2 {
			t.Errorf("%d pages, want 2 (3 + 1)", pages)
		}
		if diff := cmp.Diff(wantRevisions, clusterLines(all)); diff != "" {
			t.Errorf("revisions (-want +got):\n%s", diff)
		}
		var one queryv1.ClusterInventoryRevision
		mustGet(t, alice, clusterBase+"/clusterinventoryrevisions/fleet.3", &one)
		if diff := cmp.Diff(wantRevisions[2:3], clusterLines([]queryv1.ClusterInventoryRevision{one})); diff != "" {
			t.Errorf("revision fleet.3 (-want +got):\n%s", diff)
		}
	})

	t.Run("rows at a revision and at a time", func(t *testing.T) {
		for q, want := range map[string]int{"revision=2": 1, "at=" + day(3).Add(time.Hour).Format(time.RFC3339): 2} {
			var got []busv1.Row
			path := clusterBase + "/clusterinventoryhistories/fleet/rows?" + q
			for path != "" {
				var page queryv1.Rows
				mustGet(t, alice, path, &page)
				if page.Revision.Revision != uint64(want+1) || page.Inventory != (busv1.NamespacedName{Name: "fleet"}) {
					t.Fatalf("%s read %s revision %d, want fleet revision %d", q, page.Inventory, page.Revision.Revision, want+1)
				}
				got, path = append(got, page.Items...), ""
				if page.Continue != "" {
					path = clusterBase + "/clusterinventoryhistories/fleet/rows?continue=" + url.QueryEscape(page.Continue)
				}
			}
			if diff := cmp.Diff(sorted(states[want]), got); diff != "" {
				t.Errorf("%s rows (-want +got):\n%s", q, diff)
			}
		}
	})

	t.Run("diff and timeline", func(t *testing.T) {
		var got []string
		path := clusterBase + "/clusterinventoryhistories/fleet/diff?from=1&to=4"
		for path != "" {
			var d queryv1.Diff
			mustGet(t, alice, path, &d)
			for _, c := range d.Items {
				got = append(got, c.Change+":"+c.Key.UID)
			}
			path = ""
			if d.Continue != "" {
				path = clusterBase + "/clusterinventoryhistories/fleet/diff?continue=" + url.QueryEscape(d.Continue)
			}
		}
		if diff := cmp.Diff([]string{"changed:a", "added:c", "removed:w"}, got); diff != "" {
			t.Errorf("diff (-want +got):\n%s", diff)
		}
		var tl queryv1.Timeline
		mustGet(t, alice, clusterBase+"/clusterinventoryhistories/fleet/timeline?uid=w", &tl)
		var entries []string
		for _, en := range tl.Items {
			entries = append(entries, itoa(en.Revision)+":"+en.Change)
		}
		if diff := cmp.Diff([]string{"1:added", "3:removed"}, entries); diff != "" {
			t.Errorf("timeline (-want +got):\n%s", diff)
		}
	})

	t.Run("the list shows only the cluster inventories the caller may get", func(t *testing.T) {
		var mine queryv1.ClusterInventoryHistoryList
		mustGet(t, alice, clusterBase+"/clusterinventoryhistories", &mine)
		if len(mine.Items) != 1 || mine.Items[0].Name != "fleet" || mine.Items[0].Revisions != 4 || mine.Items[0].Namespace != "" {
			t.Errorf("alice lists %+v, want fleet's history only", mine.Items)
		}
		var none queryv1.ClusterInventoryRevisionList
		mustGet(t, bob, clusterBase+"/clusterinventoryrevisions", &none)
		if len(none.Items) != 0 {
			t.Errorf("bob lists %d cluster revisions, want none", len(none.Items))
		}
	})

	t.Run("without get on the KollectClusterInventory the API server refuses", func(t *testing.T) {
		paths := []string{
			clusterBase + "/clusterinventoryhistories/fleet",
			clusterBase + "/clusterinventoryhistories/fleet/rows",
			clusterBase + "/clusterinventoryhistories/fleet/diff?from=1&to=2",
			clusterBase + "/clusterinventoryhistories/fleet/timeline?uid=a",
			clusterBase + "/clusterinventoryrevisions/fleet.1",
			clusterBase + "/clusterinventoryrevisions?" + selector,
		}
		for _, p := range paths {
			body, code, _ := querytest.Get(ctx, bob, p)
			if code != http.StatusForbidden {
				t.Errorf("bob GET %s: status %d, want 403", p, code)
			}
			if p == paths[1] && !strings.Contains(string(body), "KollectClusterInventory") {
				t.Errorf("bob GET %s: the refusal does not name the KollectClusterInventory: %s", p, body)
			}
		}
		if _, code, _ := querytest.Get(ctx, alice, clusterBase+"/clusterinventoryhistories/hidden/rows"); code != http.StatusForbidden {
			t.Errorf("alice GET hidden's rows: status %d, want 403", code)
		}
		// The namespaced resource does not reach the cluster inventory's history.
		if _, code, _ := querytest.Get(ctx, bob, "/apis/query.kollect.dev/v1alpha1/namespaces/default/inventoryhistories/fleet/rows"); code == http.StatusOK {
			t.Errorf("bob reads fleet through the namespaced resource")
		}
	})
	t.Run("kubectl get lists a cluster inventory's revisions and histories as tables", func(t *testing.T) {
		kubectl, err := testenv.Tool("envtest/kubectl")
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			args []string
			want []string
		}{
			{[]string{"get", "clusterinventoryrevisions", "-l", queryv1.LabelInventory + "=fleet"}, []string{"REVISION", "ADDED", "fleet.4"}},
			{[]string{"get", "clusterinventoryhistories"}, []string{"REVISIONS", "OLDEST", "fleet"}},
		} {
			out, err := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", e.Kubeconfig, "--as", "alice"}, tc.args...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("kubectl %v: %v\n%s", tc.args, err, out)
			}
			for _, s := range tc.want {
				if !strings.Contains(string(out), s) {
					t.Errorf("kubectl %v lacks %q:\n%s", tc.args, s, out)
				}
			}
			if strings.Contains(string(out), "hidden") {
				t.Errorf("kubectl %v shows hidden:\n%s", tc.args, out)
			}
		}
	})
}
