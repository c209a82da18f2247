package query_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/query/querytest"
)

// deadLetterFixture is one dead letter the test publishes.
type deadLetterFixture struct {
	family busv1.Family
	inv    busv1.NamespacedName
}

// publishDeadLetters publishes one dead letter per fixture, in order,
// revision i+1 failing on the family's sink "s", and returns their
// sequences.
func publishDeadLetters(ctx context.Context, t *testing.T, e *querytest.Env, fixtures []deadLetterFixture) []uint64 {
	t.Helper()
	seqs := make([]uint64, len(fixtures))
	for i, f := range fixtures {
		dl := busv1.DeadLetter{Subject: bus.SnapshotSubject(f.inv), StreamSequence: uint64(i + 10),
			Sink: &busv1.SinkRef{Family: f.family, Namespace: f.inv.Namespace, Name: "s"}, Revision: uint64(i + 1),
			Outcome: busv1.Outcome{Reason: "ExportRejected", Message: "permission denied"},
			Time:    time.Date(2026, 1, 4, 9, i, 0, 0, time.UTC)}
		if f.inv.Namespace == "" {
			dl.Sink.Namespace = "ops"
		}
		b, err := json.Marshal(dl)
		if err != nil {
			t.Fatal(err)
		}
		ack, err := e.NATS.JS.Publish(ctx, bus.DeadLetterSubject(f.family, f.inv), b)
		if err != nil {
			t.Fatal(err)
		}
		seqs[i] = ack.Sequence
	}
	return seqs
}

// grantDeadLetters gives alice and bob the deadletters resource in team-a
// and team-b, and alice get on the KollectInventory team-a/web only;
// mallory gets nothing.
func grantDeadLetters(ctx context.Context, t *testing.T, e *querytest.Env) {
	t.Helper()
	objs := []client.Object{
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "dead-letter-reader"}, Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{queryv1.Group}, Verbs: []string{"get", "list"}, Resources: []string{queryv1.ResourceDeadLetters},
		}}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "web-inventory", Namespace: "team-a"}, Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{"kollect.dev"}, Resources: []string{"kollectinventories"}, ResourceNames: []string{"web"}, Verbs: []string{"get"},
		}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "web-inventory", Namespace: "team-a"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "web-inventory"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "alice"}}},
	}
	for _, ns := range []string{"team-a", "team-b"} {
		objs = append([]client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}}, objs...)
		objs = append(objs, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "dead-letter-readers", Namespace: ns},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "dead-letter-reader"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "alice"}, {Kind: rbacv1.UserKind, Name: "bob"}}})
	}
	for _, o := range objs {
		if err := e.Kube.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
}

// listDeadLetters reads every page of path as cfg's user and returns the
// sequences and the number of pages.
func listDeadLetters(t *testing.T, cfg *rest.Config, path string) ([]uint64, int) {
	t.Helper()
	var seqs []uint64
	pages := 0
	for next := path; next != ""; pages++ {
		var l queryv1.DeadLetterList
		mustGet(t, cfg, next, &l)
		if len(l.Items) > querytest.Limits.Revisions {
			t.Fatalf("a page of %d dead letters, the cap is %d", len(l.Items), querytest.Limits.Revisions)
		}
		for _, d := range l.Items {
			seqs = append(seqs, d.Sequence)
		}
		next = ""
		if l.Continue != "" {
			u, _ := url.Parse(path)
			q := u.Query()
			q.Set("continue", l.Continue)
			u.RawQuery = q.Encode()
			next = u.String()
		}
	}
	return seqs, pages
}

func TestDeadLettersThroughTheKubernetesAPIServer(t *testing.T) {
	ctx := context.Background()
	e := querytest.Start(t)
	grantDeadLetters(ctx, t, e)
	web, other := busv1.NamespacedName{Namespace: "team-a", Name: "web"}, busv1.NamespacedName{Namespace: "team-a", Name: "other"}
	webB, fleet := busv1.NamespacedName{Namespace: "team-b", Name: "web"}, busv1.NamespacedName{Name: "fleet"}
	seqs := publishDeadLetters(ctx, t, e, []deadLetterFixture{
		{busv1.FamilyDatabase, web}, {busv1.FamilySnapshot, other}, {busv1.FamilyDatabase, web}, {busv1.FamilyDatabase, webB},
		{busv1.FamilySnapshot, web}, {busv1.FamilyDatabase, fleet}, {busv1.FamilyDatabase, web}, {busv1.FamilyEvent, web},
	})
	alice, bob, mallory := e.As("alice"), e.As("bob"), e.As("mallory")
	const teamA = "/apis/query.kollect.dev/v1alpha1/namespaces/team-a/deadletters"
	webSeqs := []uint64{seqs[0], seqs[2], seqs[4], seqs[6], seqs[7]}

	t.Run("a user with get on one inventory sees only its dead letters, page by page", func(t *testing.T) {
		got, pages := listDeadLetters(t, alice, teamA+"?limit=100")
		if diff := cmp.Diff(webSeqs, got); diff != "" {
			t.Errorf("alice's dead letters (-want +got):\n%s", diff)
		}
		if pages != 2 {
			t.Errorf("%d pages, want 2 (3 + 2)", pages)
		}
	})

	t.Run("label selectors narrow to one inventory and one family", func(t *testing.T) {
		sel := url.QueryEscape(queryv1.LabelInventory + "=web," + queryv1.LabelFamily + "=database")
		got, _ := listDeadLetters(t, alice, teamA+"?labelSelector="+sel)
		if diff := cmp.Diff([]uint64{seqs[0], seqs[2], seqs[6]}, got); diff != "" {
			t.Errorf("web's database dead letters (-want +got):\n%s", diff)
		}
	})

	t.Run("one dead letter by sequence, with what the exporter recorded", func(t *testing.T) {
		var d queryv1.DeadLetter
		mustGet(t, alice, teamA+"/"+strconv.FormatUint(seqs[4], 10), &d)
		want := queryv1.DeadLetter{Sequence: seqs[4], Inventory: "web", Family: busv1.FamilySnapshot,
			Sink: &busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-a", Name: "s"}, Revision: 5,
			Reason: "ExportRejected", Message: "permission denied", Subject: bus.SnapshotSubject(web), StreamSequence: 14}
		got := d
		got.TypeMeta, got.ObjectMeta, got.Time = metav1.TypeMeta{}, metav1.ObjectMeta{}, metav1.Time{}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("dead letter (-want +got):\n%s", diff)
		}
		if d.Name != strconv.FormatUint(seqs[4], 10) || d.Namespace != "team-a" || d.Labels[queryv1.LabelInventory] != "web" ||
			!d.Time.Equal(&metav1.Time{Time: time.Date(2026, 1, 4, 9, 4, 0, 0, time.UTC)}) {
			t.Errorf("metadata %+v, time %v", d.ObjectMeta, d.Time)
		}
	})

	t.Run("another inventory's dead letter is forbidden, another namespace's not found", func(t *testing.T) {
		var st metav1.Status
		if code := get(t, alice, teamA+"/"+strconv.FormatUint(seqs[1], 10), &st); code != http.StatusForbidden {
			t.Errorf("team-a/other's dead letter: status %d, want 403", code)
		}
		if code := get(t, alice, teamA+"/"+strconv.FormatUint(seqs[3], 10), &st); code != http.StatusNotFound {
			t.Errorf("team-b's dead letter in team-a: status %d, want 404", code)
		}
		if code := get(t, alice, teamA+"/"+strconv.FormatUint(seqs[5], 10), &st); code != http.StatusNotFound {
			t.Errorf("a cluster inventory's dead letter in team-a: status %d, want 404", code)
		}
	})

	t.Run("a user without get on any inventory lists none and is refused one by name", func(t *testing.T) {
		// team-a has 6 dead letters; each page reads at most 4
		// (querytest.Limits.DeadLetterScan), so bob's empty list takes 2.
		if got, pages := listDeadLetters(t, bob, teamA); len(got) != 0 || pages != 2 {
			t.Errorf("bob sees %v in %d pages, want none in 2 (the scan bound ends a page early)", got, pages)
		}
		if got, _ := listDeadLetters(t, alice, "/apis/query.kollect.dev/v1alpha1/namespaces/team-b/deadletters"); len(got) != 0 {
			t.Errorf("alice sees team-b's %v", got)
		}
		var st metav1.Status
		sel := url.QueryEscape(queryv1.LabelInventory + "=web")
		if code := get(t, bob, teamA+"?labelSelector="+sel, &st); code != http.StatusForbidden {
			t.Errorf("bob listing web's dead letters: status %d, want 403", code)
		}
		if code := get(t, bob, teamA+"/"+strconv.FormatUint(seqs[0], 10), &st); code != http.StatusForbidden {
			t.Errorf("bob getting one of web's: status %d, want 403", code)
		}
	})

	t.Run("a user without the query resource is refused by the API server's RBAC", func(t *testing.T) {
		var st metav1.Status
		for _, p := range []string{teamA, teamA + "/" + strconv.FormatUint(seqs[0], 10)} {
			if code := get(t, mallory, p, &st); code != http.StatusForbidden {
				t.Errorf("mallory GET %s: status %d, want 403", p, code)
			}
		}
	})

	t.Run("kubectl get prints a table", func(t *testing.T) {
		kubectl, err := testenv.Tool("envtest/kubectl")
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", e.Kubeconfig, "--as", "alice", "get", "deadletters",
			"-n", "team-a", "-l", queryv1.LabelFamily+"=snapshot").CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl: %v\n%s", err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "NAME") || !strings.Contains(lines[0], "REASON") ||
			!strings.HasPrefix(lines[1], strconv.FormatUint(seqs[4], 10)+" ") || !strings.Contains(lines[1], "snapshot/s") {
			t.Errorf("kubectl get deadletters:\n%s", out)
		}
	})

	t.Run("across namespaces, and the cluster inventories' apart", func(t *testing.T) {
		all, _ := listDeadLetters(t, e.Kube.Config, "/apis/query.kollect.dev/v1alpha1/deadletters")
		want := []uint64{seqs[0], seqs[1], seqs[2], seqs[3], seqs[4], seqs[6], seqs[7]}
		if diff := cmp.Diff(want, all); diff != "" {
			t.Errorf("every namespace's dead letters (-want +got):\n%s", diff)
		}
		var l queryv1.ClusterDeadLetterList
		mustGet(t, e.Kube.Config, "/apis/query.kollect.dev/v1alpha1/clusterdeadletters", &l)
		if len(l.Items) != 1 || l.Items[0].Sequence != seqs[5] || l.Items[0].Inventory != "fleet" || l.Items[0].Namespace != "" {
			t.Errorf("cluster dead letters: %+v", l.Items)
		}
	})
}
