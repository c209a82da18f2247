package query_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/query/querytest"
)

// TestARecreatedInventoryShowsNoRevisionOfItsPredecessor deletes an
// inventory with a history and creates one of the same name: the history
// API serves nothing of the deleted one (while it is gone, and once its
// successor publishes, numbered from 1 again), only the successor's
// revisions (SECURITY-3 F5).
func TestARecreatedInventoryShowsNoRevisionOfItsPredecessor(t *testing.T) {
	ctx := context.Background()
	e := querytest.Start(t)
	admin := e.Kube.Config
	if err := e.Kube.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}); err != nil {
		t.Fatal(err)
	}
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "apps"}
	p, err := querytest.NewPublisher(ctx, e.NATS.JS, inv)
	if err != nil {
		t.Fatal(err)
	}
	p.UID = string(createInventory(ctx, t, e, inv).UID)
	for i, rows := range states[:2] {
		if _, err := p.Publish(ctx, rows, day(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	revisions := func() []string { // a list naming one inventory without a history is 404: none
		var l queryv1.InventoryRevisionList
		path := base + "/inventoryrevisions?labelSelector=" + url.QueryEscape(queryv1.LabelInventory+"=apps")
		if code := get(t, admin, path, &l); code != http.StatusOK && code != http.StatusNotFound {
			t.Fatalf("GET %s: status %d", path, code)
		}
		var out []string
		for _, r := range l.Items {
			out = append(out, r.Name+" "+r.Checksum)
		}
		return out
	}
	if got := revisions(); len(got) != 2 {
		t.Fatalf("before the deletion: revisions %v, want 2", got)
	}

	old := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: inv.Namespace, Name: inv.Name}}
	if err := e.Kube.Client.Delete(ctx, old); err != nil {
		t.Fatal(err)
	}
	testenv.EventuallyTrue(t, 30*time.Second, "the inventory is gone", func() bool {
		return apierrors.IsNotFound(e.Kube.Client.Get(ctx, client.ObjectKeyFromObject(old), old))
	})
	t.Run("deleted: nothing is served", func(t *testing.T) {
		// The query service learns of the deletion from its watch.
		testenv.EventuallyTrue(t, 30*time.Second, "no revision of the deleted inventory is listed", func() bool { return len(revisions()) == 0 })
		for _, path := range []string{base + "/inventoryhistories/apps", base + "/inventoryhistories/apps/rows?revision=1",
			base + "/inventoryrevisions/apps.1", base + "/inventoryhistories/apps/diff?from=1&to=2"} {
			var st map[string]any
			if code := get(t, admin, path, &st); code != http.StatusNotFound {
				t.Errorf("GET %s: status %d, want 404", path, code)
			}
		}
		var l queryv1.InventoryHistoryList
		mustGet(t, admin, base+"/inventoryhistories", &l)
		if len(l.Items) != 0 {
			t.Errorf("the namespace lists %d histories, want none", len(l.Items))
		}
	})

	p.Recreated(string(createInventory(ctx, t, e, inv).UID))
	ev, err := p.Publish(ctx, states[3], day(5))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("recreated: only the successor's revisions", func(t *testing.T) {
		if diff := cmp.Diff([]string{"apps.1 " + ev.Checksum}, revisions()); diff != "" {
			t.Errorf("revisions (-want +got):\n%s", diff)
		}
		var h queryv1.InventoryHistory
		mustGet(t, admin, base+"/inventoryhistories/apps", &h)
		if h.Revisions != 1 || h.Checksum != ev.Checksum {
			t.Errorf("history: %d revisions, checksum %s; want 1, %s", h.Revisions, h.Checksum, ev.Checksum)
		}
		var rows queryv1.Rows
		mustGet(t, admin, base+"/inventoryhistories/apps/rows?revision=1&limit=2", &rows)
		if rows.Revision.Checksum != ev.Checksum || rows.Revision.Added != len(states[3]) {
			t.Errorf("rows of revision 1: %+v, want the successor's (checksum %s, every row added)", rows.Revision, ev.Checksum)
		}
		var tl queryv1.Timeline
		mustGet(t, admin, base+"/inventoryhistories/apps/timeline?uid=w", &tl)
		if len(tl.Items) != 0 {
			t.Errorf("timeline of a row only the predecessor had: %+v", tl.Items)
		}
		var st map[string]any
		if code := get(t, admin, base+"/inventoryhistories/apps/diff?from="+day(1).Format(time.RFC3339), &st); code != http.StatusNotFound {
			t.Errorf("diff from a time of the predecessor: status %d, want 404", code)
		}
	})
}

// createInventory creates the KollectInventory inv and returns it.
func createInventory(ctx context.Context, t *testing.T, e *querytest.Env, inv busv1.NamespacedName) *v1alpha1.KollectInventory {
	t.Helper()
	o := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Namespace: inv.Namespace, Name: inv.Name}}
	if err := e.Kube.Client.Create(ctx, o); err != nil {
		t.Fatal(err)
	}
	return o
}
