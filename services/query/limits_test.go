package query_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/services/query/querytest"
)

// TestADiffOverTheLimitIsRefusedButItsRowsArePaged publishes two revisions
// of 30 rows, all changed: their diff compares 60 rows, over the test
// service's 40 (--max-diff-rows), and is refused with 422 saying what to do
// instead; each revision's rows still page, and a diff of revisions that
// share their chunks is answered.
func TestADiffOverTheLimitIsRefusedButItsRowsArePaged(t *testing.T) {
	ctx := context.Background()
	e := querytest.Start(t)
	p, err := querytest.NewPublisher(ctx, e.NATS.JS, busv1.NamespacedName{Namespace: "team-a", Name: "big"})
	if err != nil {
		t.Fatal(err)
	}
	rows := func(image string) []busv1.Row {
		var out []busv1.Row
		for i := range 30 {
			out = append(out, row(fmt.Sprintf("app-%02d", i), fmt.Sprintf("u%02d", i), "Deployment", map[string]any{"image": image}))
		}
		return out
	}
	for i, image := range []string{"v1", "v2", "v2"} {
		if _, err := p.Publish(ctx, rows(image), day(i+1)); err != nil {
			t.Fatal(err)
		}
	}
	admin := e.Kube.Config
	body, code, _ := querytest.Get(ctx, admin, base+"/inventoryhistories/big/diff?from=1&to=2")
	if code != http.StatusUnprocessableEntity {
		t.Errorf("diff of 60 rows: status %d, want 422: %s", code, body)
	}
	for _, s := range []string{"compares 60 rows", "of 40 (--max-diff-rows)", "rows?revision=N"} {
		if !strings.Contains(string(body), s) {
			t.Errorf("the refusal does not say %q: %s", s, body)
		}
	}
	n := 0
	for path := base + "/inventoryhistories/big/rows?revision=1"; path != ""; {
		var page queryv1.Rows
		mustGet(t, admin, path, &page)
		n, path = n+len(page.Items), ""
		if page.Continue != "" {
			path = base + "/inventoryhistories/big/rows?continue=" + page.Continue
		}
	}
	if n != 30 {
		t.Errorf("the pages of revision 1 hold %d rows, want 30", n)
	}
	var d queryv1.Diff
	mustGet(t, admin, base+"/inventoryhistories/big/diff?from=2&to=3", &d)
	if len(d.Items) != 0 || d.From.Revision != 2 || d.To.Revision != 3 {
		t.Errorf("diff of two revisions with the same rows: %d changes between %d and %d", len(d.Items), d.From.Revision, d.To.Revision)
	}
}
