package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/cli"
	"kollect.dev/kollect/services/query/querytest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func historyRow(name, image string) busv1.Row {
	return busv1.Row{TargetNamespace: "shop", TargetName: "workloads", Namespace: "shop", Name: name, UID: "u-" + name,
		Group: "apps", Version: "v1", Kind: "Deployment", Attributes: map[string]any{"image": image}}
}

// TestHistoryDiffAndGetAtThroughTheAPIServer runs kollect history, diff and
// get inventory --at against the query service behind a real
// kube-apiserver, with the kubeconfig's credentials.
func TestHistoryDiffAndGetAtThroughTheAPIServer(t *testing.T) {
	ctx := context.Background()
	e := querytest.Start(t)
	if err := e.Kube.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}); err != nil {
		t.Fatal(err)
	}
	p, err := querytest.NewPublisher(ctx, e.NATS.JS, busv1.NamespacedName{Namespace: "shop", Name: "workloads"})
	if err != nil {
		t.Fatal(err)
	}
	monday := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	v1 := []busv1.Row{historyRow("api", "api:1"), historyRow("web", "web:1"), historyRow("db", "pg:17")}
	v2 := []busv1.Row{historyRow("api", "api:2"), historyRow("db", "pg:17"), historyRow("cache", "valkey:8")}
	for i, rows := range [][]busv1.Row{v1, v2} {
		if _, err := p.Publish(ctx, rows, monday.Add(time.Duration(i)*24*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := cli.Main(ctx, append([]string{"--kubeconfig", e.Kubeconfig}, args...), cli.Streams{Out: &out, Err: &errOut})
		return out.String(), errOut.String(), code
	}

	t.Run("history lists the revisions with what each changed", func(t *testing.T) {
		out, errOut, code := run("history", "shop/workloads")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		want := `REVISION   TIME                   REASON   ITEMS   ADDED   CHANGED   REMOVED
1          2026-01-05T09:00:00Z   change   3       3       0         0
2          2026-01-06T09:00:00Z   change   3       1       1         1
`
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("history (-want +got):\n%s", diff)
		}
	})

	t.Run("history with --no-headers, jsonpath and custom-columns, as kubectl", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"history", "shop/workloads", "--no-headers"},
				"1     2026-01-05T09:00:00Z   change   3     3     0     0\n2     2026-01-06T09:00:00Z   change   3     1     1     1\n"},
			{[]string{"history", "shop/workloads", "-o", "jsonpath={.items[*].revision}"}, "1 2"},
			{[]string{"history", "shop/workloads", "-o", "jsonpath={.items[-1:].revision}"}, "2"},
			{[]string{"history", "shop/workloads", "-o", "custom-columns=REV:.revision,ADDED:.added"}, "REV   ADDED\n1     3\n2     1\n"},
			{[]string{"diff", "shop/workloads", "--from", "1", "--no-headers"},
				"changed   shop   Deployment   api     image: api:1 -> api:2\nadded     shop   Deployment   cache   \nremoved   shop   Deployment   web     \n"},
		} {
			out, errOut, code := run(tc.args...)
			if code != 0 || out != tc.want {
				t.Errorf("%v: exit %d, stdout %q, stderr %s; want %q", tc.args, code, out, errOut, tc.want)
			}
		}
	})

	t.Run("diff between times prints the changed attributes", func(t *testing.T) {
		out, errOut, code := run("diff", "workloads", "-n", "shop", "--from", monday.Format(time.RFC3339), "--to", "2")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		want := `CHANGE    NAMESPACE   KIND         NAME    ATTRIBUTES
changed   shop        Deployment   api     image: api:1 -> api:2
added     shop        Deployment   cache   
removed   shop        Deployment   web     
`
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("diff (-want +got):\n%s", diff)
		}
	})

	t.Run("get inventory --at prints the rows then, page after page", func(t *testing.T) {
		out, errOut, code := run("get", "inventory", "shop/workloads", "--at", monday.Add(time.Hour).Format(time.RFC3339), "-o", "ndjson")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var got []busv1.Row
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var r busv1.Row
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		want := append([]busv1.Row(nil), v1...)
		snapshot.Sort(want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("rows (-want +got):\n%s", diff)
		}
		out, _, code = run("get", "inventory", "shop/workloads", "--revision", "2", "-o", "json")
		var doc queryv1.Rows
		if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc.Revision.Revision != 2 || len(doc.Items) != 3 {
			t.Errorf("-o json: exit %d, %v, revision %d with %d rows", code, err, doc.Revision.Revision, len(doc.Items))
		}
	})

	t.Run("a user without get on the inventory is told so", func(t *testing.T) {
		_, errOut, code := run("--as", "mallory", "history", "shop/workloads")
		if code != 1 || !strings.Contains(errOut, "forbidden") {
			t.Errorf("exit %d: %s", code, errOut)
		}
	})

	t.Run("a time that is not RFC 3339 is refused before any request", func(t *testing.T) {
		_, errOut, code := run("diff", "shop/workloads", "--from", "monday")
		if code != 2 || !strings.Contains(errOut, "--from") {
			t.Errorf("exit %d: %s", code, errOut)
		}
	})
	t.Run("a cluster inventory's history, diff and rows through --cluster-inventory", func(t *testing.T) {
		fleet, err := querytest.NewPublisher(ctx, e.NATS.JS, busv1.NamespacedName{Name: "fleet"})
		if err != nil {
			t.Fatal(err)
		}
		for i, rows := range [][]busv1.Row{v2, v1} {
			if _, err := fleet.Publish(ctx, rows, monday.Add(time.Duration(i)*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		out, errOut, code := run("history", "--cluster-inventory", "fleet")
		want := `REVISION   TIME                   REASON   ITEMS   ADDED   CHANGED   REMOVED
1          2026-01-05T09:00:00Z   change   3       3       0         0
2          2026-01-05T10:00:00Z   change   3       1       1         1
`
		if diff := cmp.Diff(want, out); code != 0 || diff != "" {
			t.Errorf("history: exit %d: %s (-want +got):\n%s", code, errOut, diff)
		}
		out, errOut, code = run("diff", "--cluster-inventory", "fleet", "-o", "ndjson")
		var changes []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var c queryv1.RowChange
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				t.Fatalf("diff: exit %d: %s: %v", code, errOut, err)
			}
			changes = append(changes, c.Change+":"+c.Key.UID)
		}
		if diff := cmp.Diff([]string{"changed:u-api", "removed:u-cache", "added:u-web"}, changes); diff != "" {
			t.Errorf("diff (-want +got):\n%s", diff)
		}
		out, errOut, code = run("get", "inventory", "--cluster-inventory", "fleet", "--revision", "1", "-o", "json")
		var doc queryv1.Rows
		if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc.Revision.Revision != 1 ||
			doc.Inventory != (busv1.NamespacedName{Name: "fleet"}) || len(doc.Items) != 3 {
			t.Errorf("get --cluster-inventory: exit %d, %s, %v, %s revision %d with %d rows", code, errOut, err, doc.Inventory, doc.Revision.Revision, len(doc.Items))
		}
		_, errOut, code = run("--as", "mallory", "history", "--cluster-inventory", "fleet")
		if code != 1 || !strings.Contains(errOut, "forbidden") || !strings.Contains(errOut, "KollectClusterInventory") {
			t.Errorf("mallory: exit %d: %s", code, errOut)
		}
		_, errOut, code = run("history", "shop/workloads", "--cluster-inventory", "fleet")
		if code != 2 || !strings.Contains(errOut, "--cluster-inventory") {
			t.Errorf("both an inventory and --cluster-inventory: exit %d: %s", code, errOut)
		}
	})
}
