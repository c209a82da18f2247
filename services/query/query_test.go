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
	"k8s.io/client-go/rest"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/query/querytest"
)

const base = "/apis/query.kollect.dev/v1alpha1/namespaces/team-a"

// get decodes path's answer for cfg's user into v and returns the status.
func get(t *testing.T, cfg *rest.Config, path string, v any) int {
	t.Helper()
	body, code, err := querytest.Get(context.Background(), cfg, path)
	if err != nil {
		if code == 0 {
			t.Fatal(err)
		}
		return code
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("decode %s: %v\n%s", path, err, body)
	}
	return code
}

// mustGet is get expecting 200.
func mustGet(t *testing.T, cfg *rest.Config, path string, v any) {
	t.Helper()
	if code := get(t, cfg, path, v); code != http.StatusOK {
		t.Fatalf("GET %s: status %d", path, code)
	}
}

// sorted returns rows in canonical order.
func sorted(rows []busv1.Row) []busv1.Row {
	out := append([]busv1.Row(nil), rows...)
	snapshot.Sort(out)
	return out
}

type revisionLine struct {
	Name                                     string
	Revision                                 uint64
	Time                                     time.Time
	Reason                                   string
	Items, Added, Changed, Removed           int
	Checksum, PreviousChecksum, InventoryLbl string
}

func lines(items []queryv1.InventoryRevision) []revisionLine {
	out := make([]revisionLine, len(items))
	for i, r := range items {
		out[i] = revisionLine{r.Name, r.Revision, r.Time.UTC(), r.Reason, r.ItemCount, r.Added, r.Changed, r.Removed,
			r.Checksum, r.PreviousChecksum, r.Labels[queryv1.LabelInventory]}
	}
	return out
}

func TestHistoryThroughTheKubernetesAPIServer(t *testing.T) {
	ctx := context.Background()
	e := querytest.Start(t)
	evs := publishHistory(ctx, t, e)
	grant(ctx, t, e)
	alice, bob := e.As("alice"), e.As("bob")

	wantRevisions := []revisionLine{
		{"web.1", 1, day(1), "change", 3, 3, 0, 0, evs[0].Checksum, "", "web"},
		{"web.2", 2, day(2), "change", 4, 1, 1, 0, evs[1].Checksum, evs[0].Checksum, "web"},
		{"web.3", 3, day(3), "change", 3, 0, 1, 1, evs[2].Checksum, evs[1].Checksum, "web"},
		{"web.4", 4, day(4), "change", 3, 0, 1, 0, evs[3].Checksum, evs[2].Checksum, "web"},
	}

	t.Run("the revisions list pages at the server's cap, periodic re-exports are not revisions", func(t *testing.T) {
		var all []queryv1.InventoryRevision
		path := base + "/inventoryrevisions?labelSelector=" + url.QueryEscape(queryv1.LabelInventory+"=web") + "&limit=100"
		pages := 0
		for path != "" {
			var l queryv1.InventoryRevisionList
			mustGet(t, alice, path, &l)
			if len(l.Items) > querytest.Limits.Revisions {
				t.Fatalf("a page of %d revisions, the cap is %d", len(l.Items), querytest.Limits.Revisions)
			}
			all, pages = append(all, l.Items...), pages+1
			path = ""
			if l.Continue != "" {
				path = base + "/inventoryrevisions?labelSelector=" + url.QueryEscape(queryv1.LabelInventory+"=web") +
					"&continue=" + url.QueryEscape(l.Continue)
			}
		}
		if pages != 2 {
			t.Errorf("%d pages, want 2 (3 + 1)", pages)
		}
		if diff := cmp.Diff(wantRevisions, lines(all)); diff != "" {
			t.Errorf("revisions (-want +got):\n%s", diff)
		}
	})

	t.Run("one revision by name", func(t *testing.T) {
		var r queryv1.InventoryRevision
		mustGet(t, alice, base+"/inventoryrevisions/web.3", &r)
		if diff := cmp.Diff(wantRevisions[2:3], lines([]queryv1.InventoryRevision{r})); diff != "" {
			t.Errorf("revision (-want +got):\n%s", diff)
		}
	})

	t.Run("rows at a revision or a time equal the known state, page by page", func(t *testing.T) {
		tests := []struct {
			name, query string
			want        int // index in states
		}{
			{"revision 2", "revision=2", 1},
			{"the revision current at a time", "at=" + day(2).Add(13*time.Hour).Format(time.RFC3339), 1},
			{"a revision's exact time", "at=" + day(3).Format(time.RFC3339), 2},
			{"the latest by default", "", 3},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var got []busv1.Row
				path := base + "/inventoryhistories/web/rows?limit=2&" + tt.query
				for path != "" {
					var page queryv1.Rows
					mustGet(t, alice, path, &page)
					if len(page.Items) > querytest.Limits.Rows {
						t.Fatalf("a page of %d rows, the cap is %d", len(page.Items), querytest.Limits.Rows)
					}
					if page.Revision.Revision != uint64(tt.want+1) {
						t.Fatalf("read revision %d, want %d", page.Revision.Revision, tt.want+1)
					}
					got, path = append(got, page.Items...), ""
					if page.Continue != "" {
						path = base + "/inventoryhistories/web/rows?continue=" + url.QueryEscape(page.Continue)
					}
				}
				if diff := cmp.Diff(sorted(states[tt.want]), got); diff != "" {
					t.Errorf("rows (-want +got):\n%s", diff)
				}
			})
		}
	})

	t.Run("a time before the history is not found", func(t *testing.T) {
		var st map[string]any
		if code := get(t, alice, base+"/inventoryhistories/web/rows?at="+day(0).Format(time.RFC3339), &st); code != http.StatusNotFound {
			t.Errorf("status %d, want 404", code)
		}
	})

	t.Run("bad parameters and requests over a limit are refused naming the parameter and the limit", func(t *testing.T) {
		tests := []struct {
			path string
			code int
			says []string
		}{
			{"/inventoryhistories/web/rows?at=yesterday", http.StatusBadRequest, []string{"at:"}},
			{"/inventoryhistories/web/rows?limit=3", http.StatusBadRequest, []string{"limit: 3", "(2,", "--max-rows-per-page"}},
			{"/inventoryhistories/web/diff?limit=3", http.StatusBadRequest, []string{"limit: 3", "--max-rows-per-page"}},
			{"/inventoryhistories/web/timeline?uid=a&limit=4", http.StatusBadRequest, []string{"limit: 4", "--max-revisions-per-page"}},
			{"/inventoryhistories/web/timeline?uid=a&since=" + day(1).Format(time.RFC3339) + "&until=" + day(40).Format(time.RFC3339),
				http.StatusBadRequest, []string{"since and until", "744h0m0s", "--max-timeline-span"}},
			{"/inventoryhistories/web/timeline?uid=a&since=" + day(3).Format(time.RFC3339) + "&until=" + day(1).Format(time.RFC3339),
				http.StatusBadRequest, []string{"since is after until"}},
		}
		for _, tt := range tests {
			body, code, _ := querytest.Get(ctx, alice, base+tt.path)
			if code != tt.code {
				t.Errorf("GET %s: status %d, want %d: %s", tt.path, code, tt.code, body)
			}
			for _, s := range tt.says {
				if !strings.Contains(string(body), s) {
					t.Errorf("GET %s: the answer does not say %q: %s", tt.path, s, body)
				}
			}
		}
	})

	t.Run("diff between revisions and between times", func(t *testing.T) {
		api1, api3, cache, web := states[0][0], states[3][0], states[1][3], states[0][1]
		want := []queryv1.RowChange{
			{Change: "changed", Key: api1.Key(), Before: &api1, After: &api3, Attributes: []queryv1.AttributeChange{
				{Name: "image", Before: "api:1", After: "api:3"}, {Name: "replicas", Before: nil, After: float64(3)}}},
			{Change: "added", Key: cache.Key(), After: &cache},
			{Change: "removed", Key: web.Key(), Before: &web},
		}
		for _, q := range []string{"from=1&to=4", "from=" + day(1).Format(time.RFC3339) + "&to=" + day(5).Format(time.RFC3339)} {
			var got []queryv1.RowChange
			path := base + "/inventoryhistories/web/diff?" + q
			for path != "" {
				var d queryv1.Diff
				mustGet(t, alice, path, &d)
				if d.From.Revision != 1 || d.To.Revision != 4 {
					t.Fatalf("%s compared %d and %d", q, d.From.Revision, d.To.Revision)
				}
				got, path = append(got, d.Items...), ""
				if d.Continue != "" {
					path = base + "/inventoryhistories/web/diff?continue=" + url.QueryEscape(d.Continue)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", q, diff)
			}
		}
	})

	t.Run("an object's timeline", func(t *testing.T) {
		tests := []struct {
			name, query string
			want        []string // revision:change
		}{
			{"by kind and name, across pages", "kind=Deployment&namespace=team-a&name=api", []string{"1:added", "2:changed", "3:changed", "4:changed"}},
			{"by uid", "uid=w", []string{"1:added", "3:removed"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var got []string
				path := base + "/inventoryhistories/web/timeline?" + tt.query
				for path != "" {
					var tl queryv1.Timeline
					mustGet(t, alice, path, &tl)
					for _, en := range tl.Items {
						got = append(got, strings.Join([]string{itoa(en.Revision), en.Change}, ":"))
					}
					path = ""
					if tl.Continue != "" {
						path = base + "/inventoryhistories/web/timeline?" + tt.query + "&continue=" + url.QueryEscape(tl.Continue)
					}
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("timeline (-want +got):\n%s", diff)
				}
			})
		}
	})

	t.Run("a user who may not get the inventory is refused by the API server", func(t *testing.T) {
		paths := []string{
			base + "/inventoryhistories/web/rows",
			base + "/inventoryhistories/web/diff?from=1&to=2",
			base + "/inventoryhistories/web/timeline?uid=a",
			base + "/inventoryhistories/web",
			base + "/inventoryrevisions/web.1",
			base + "/inventoryrevisions?labelSelector=" + url.QueryEscape(queryv1.LabelInventory+"=web"),
		}
		for _, p := range paths {
			var st map[string]any
			if code := get(t, bob, p, &st); code != http.StatusForbidden {
				t.Errorf("bob GET %s: status %d, want 403", p, code)
			}
		}
		var st map[string]any
		if code := get(t, alice, base+"/inventoryhistories/secret/rows", &st); code != http.StatusForbidden {
			t.Errorf("alice GET secret's rows: status %d, want 403", code)
		}
		var mine queryv1.InventoryHistoryList
		mustGet(t, alice, base+"/inventoryhistories", &mine)
		if len(mine.Items) != 1 || mine.Items[0].Name != "web" || mine.Items[0].Revisions != 4 {
			t.Errorf("alice lists %+v, want web's history only", mine.Items)
		}
		var other queryv1.InventoryRevisionList
		mustGet(t, alice, base+"/inventoryrevisions?labelSelector="+url.QueryEscape(queryv1.LabelInventory+" in (web,other)"), &other)
		if len(other.Items) != querytest.Limits.Revisions || other.Continue == "" {
			t.Errorf("alice lists %d revisions with a set selector (continue %q), want a full page of web's", len(other.Items), other.Continue)
		}
		for _, r := range other.Items {
			if r.Inventory != "web" {
				t.Errorf("a set selector on web lists %s", r.Name)
			}
		}
		var admins queryv1.InventoryRevisionList
		mustGet(t, e.Kube.Config, base+"/inventoryrevisions?labelSelector="+url.QueryEscape(queryv1.LabelInventory+" in (secret)"), &admins)
		if len(admins.Items) != 1 || admins.Items[0].Name != "secret.1" {
			t.Errorf("a set selector on secret lists %v, want secret.1", lines(admins.Items))
		}
		var none queryv1.InventoryRevisionList
		mustGet(t, bob, base+"/inventoryrevisions", &none)
		if len(none.Items) != 0 {
			t.Errorf("bob lists %d revisions of the namespace, want none", len(none.Items))
		}
	})

	t.Run("a user who may get the inventory but not its data lists revisions and is refused its rows", func(t *testing.T) {
		carol := e.As("carol")
		var l queryv1.InventoryRevisionList
		mustGet(t, carol, base+"/inventoryrevisions?labelSelector="+url.QueryEscape(queryv1.LabelInventory+"=web")+"&limit=100", &l)
		if len(l.Items) == 0 {
			t.Errorf("carol lists no revision of web")
		}
		var h queryv1.InventoryHistory
		mustGet(t, carol, base+"/inventoryhistories/web", &h)
		for _, p := range []string{"/inventoryhistories/web/rows", "/inventoryhistories/web/diff?from=1&to=2", "/inventoryhistories/web/timeline?uid=a"} {
			body, code, _ := querytest.Get(ctx, carol, base+p)
			if code != http.StatusForbidden {
				t.Errorf("carol GET %s: status %d, want 403: %s", p, code, body)
				continue
			}
			if want := "kollectinventories/" + queryv1.InventoryDataSubresource; !strings.Contains(string(body), want) {
				t.Errorf("carol GET %s: the refusal does not name %s: %s", p, want, body)
			}
		}
	})

	t.Run("kubectl get lists revisions as a table and refuses bob", func(t *testing.T) {
		kubectl, err := testenv.Tool("envtest/kubectl")
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", e.Kubeconfig, "--as", "alice", "get", "inventoryrevisions",
			"-n", "team-a", "-l", queryv1.LabelInventory+"=web").CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl: %v\n%s", err, out)
		}
		for _, s := range []string{"REVISION", "ADDED", "CHANGED", "REMOVED", "web.4"} {
			if !strings.Contains(string(out), s) {
				t.Errorf("kubectl output lacks %q:\n%s", s, out)
			}
		}
		out, err = exec.CommandContext(ctx, kubectl, "--kubeconfig", e.Kubeconfig, "--as", "bob", "get", "--raw",
			base+"/inventoryhistories/web/rows").CombinedOutput()
		if err == nil || !strings.Contains(string(out), "Forbidden") {
			t.Errorf("kubectl as bob: %v\n%s", err, out)
		}
	})
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
