package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/testenv/golden"
	"kollect.dev/kollect/services/cli"
	"kollect.dev/kollect/services/cli/internal/collect"
)

// TestKubectlConventions runs the CLI as a kubectl user would, against the
// real API server: -n, -A, -l, -o, --as, ad-hoc collection and get.
func TestKubectlConventions(t *testing.T) {
	k := testenv.StartKube(t)
	ctx := context.Background()
	kcfg := kubeconfig(t, k)
	namespace(ctx, t, k.Client, "team-a", map[string]string{"env": "prod"})
	namespace(ctx, t, k.Client, "team-b", map[string]string{"env": "prod"})
	deployment(ctx, t, k.Client, "team-a", "web", map[string]string{"owner": "alice", "app": "web"}, "nginx:1.27", "envoy:1.30")
	deployment(ctx, t, k.Client, "team-a", "worker", map[string]string{"app": "worker"}, "worker:3")
	deployment(ctx, t, k.Client, "team-b", "api", map[string]string{"app": "web"}, "api:2.1")
	dir := writeConfig(t, map[string]string{"kollect.yaml": config})
	image := "image=$.spec.template.spec.containers[0].image"

	t.Run("ad-hoc collection of one namespace prints a table", func(t *testing.T) {
		code, stdout, stderr := run(t, "collect", "--kubeconfig", kcfg, "-n", "team-a", "--kind", "deployments.apps",
			"--attr", image, "--attr", "containers=cel:size(object.spec.template.spec.containers)", "--attr", "owner={.metadata.labels.owner}")
		if code != collect.ExitOK {
			t.Fatalf("exit %d, stderr %s", code, stderr)
		}
		golden.Check(t, filepath.Join("testdata", "collect-adhoc-table"+".golden"), []byte(stdout))
	})

	t.Run("-A -l selects by label in every namespace, by short name", func(t *testing.T) {
		code, stdout, stderr := run(t, "collect", "--kubeconfig", kcfg, "-A", "-l", "app=web", "--kind", "deploy", "--attr", image)
		if code != collect.ExitOK {
			t.Fatalf("exit %d, stderr %s", code, stderr)
		}
		golden.Check(t, filepath.Join("testdata", "collect-adhoc-all-namespaces"+".golden"), []byte(stdout))
	})

	t.Run("-o ndjson prints the records of an ad-hoc collection", func(t *testing.T) {
		code, stdout, stderr := run(t, "collect", "--kubeconfig", kcfg, "-n", "team-b", "--kind", "deployments.apps", "--attr", image, "-o", "ndjson")
		var rec collect.Record
		if code != collect.ExitOK || json.Unmarshal([]byte(stdout), &rec) != nil || rec.Envelope.ItemCount != 1 {
			t.Fatalf("exit %d, stdout %s, stderr %s", code, stdout, stderr)
		}
	})

	t.Run("-n restricts a folder's collection", func(t *testing.T) {
		code, stdout, stderr := run(t, "collect", "--kubeconfig", kcfg, "--config", dir, "-n", "team-b", "-o", "table")
		if code != collect.ExitOK {
			t.Fatalf("exit %d, stderr %s", code, stderr)
		}
		golden.Check(t, filepath.Join("testdata", "collect-folder-namespace"+".golden"), []byte(stdout))
	})

	t.Run("-o wide adds the context and the attributes", func(t *testing.T) {
		code, stdout, stderr := run(t, "collect", "--kubeconfig", kcfg, "--config", dir, "-o", "wide")
		if code != collect.ExitOK || !strings.Contains(stdout, "containers=2,image=nginx:1.27,owner=alice") || !strings.HasPrefix(stdout, "CONTEXT") {
			t.Fatalf("exit %d, stdout %s, stderr %s", code, stdout, stderr)
		}
	})

	t.Run("-o is a format, never a folder; --format still works, with a deprecation warning", func(t *testing.T) {
		out := t.TempDir()
		code, stdout, stderr := run(t, "collect", "--kubeconfig", kcfg, "--config", dir, "--output", out)
		if code != collect.ExitNothing || stdout != "" || !strings.Contains(stderr, "must be one of ndjson, json, yaml, table, wide, jsonpath=TEMPLATE") ||
			!strings.Contains(stderr, "files go to --output-dir DIR") {
			t.Fatalf("-o FOLDER: exit %d, stderr %s; want 2 with the formats", code, stderr)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Fatalf("-o FOLDER wrote %v", entries)
		}
		code, _, stderr = run(t, "collect", "--kubeconfig", kcfg, "--config", dir, "--output-dir", out, "--format", "yaml")
		if code != collect.ExitOK || !strings.Contains(stderr, "--format has been deprecated") {
			t.Fatalf("exit %d, stderr %s", code, stderr)
		}
	})

	t.Run("collect prints its records with jsonpath and custom-columns, its tables with --no-headers", func(t *testing.T) {
		code, stdout, stderr := run(t, "collect", "--kubeconfig", kcfg, "--config", dir, "-n", "team-b",
			"-o", "custom-columns=INVENTORY:.inventory,ITEMS:.envelope.itemCount,NAMES:.envelope.items[*].name")
		if want := "INVENTORY          ITEMS   NAMES\nteam-a/workloads   1       api\n"; code != collect.ExitOK || stdout != want {
			t.Fatalf("custom-columns: exit %d, stdout %q, want %q, stderr %s", code, stdout, want, stderr)
		}
		code, stdout, stderr = run(t, "collect", "--kubeconfig", kcfg, "--config", dir, "-n", "team-a", "-o", "jsonpath={.items[*].envelope.items[*].name}")
		if want := "web worker"; code != collect.ExitOK || stdout != want {
			t.Fatalf("jsonpath: exit %d, stdout %q, want %q, stderr %s", code, stdout, want, stderr)
		}
		code, stdout, stderr = run(t, "collect", "--kubeconfig", kcfg, "-n", "team-a", "--kind", "deployments.apps", "--attr", image, "--no-headers")
		if want := "team-a   web      nginx:1.27\nteam-a   worker   worker:3\n"; code != collect.ExitOK || stdout != want {
			t.Fatalf("--no-headers: exit %d, stdout %q, want %q, stderr %s", code, stdout, want, stderr)
		}
	})

	t.Run("-o names the field when it is neither a format nor a folder with --output-dir", func(t *testing.T) {
		code, _, stderr := run(t, "collect", "--kubeconfig", kcfg, "--config", dir, "-o", "csv", "--output-dir", t.TempDir())
		if code != collect.ExitNothing || !strings.Contains(stderr, "-o/--output") {
			t.Fatalf("exit %d, stderr %s", code, stderr)
		}
	})

	t.Run("a namespace-scoped user collects from the Targets' namespaces", func(t *testing.T) {
		grant(ctx, t, k, "team-a", "alice")
		// a Target with no namespace filter collects every namespace; alice
		// may read only her own
		tenant := writeConfig(t, map[string]string{"kollect.yaml": strings.Replace(config, "  namespaceSelector: {matchLabels: {env: prod}}\n", "", 1)})
		code, stdout, stderr := run(t, "collect", "--kubeconfig", kcfg, "--as", "alice", "--config", tenant, "-o", "table")
		if code != collect.ExitOK || !strings.Contains(stderr, "may not list namespaces; collecting from team-a only") {
			t.Fatalf("exit %d, stdout %s, stderr %s", code, stdout, stderr)
		}
		golden.Check(t, filepath.Join("testdata", "collect-namespaced-user"+".golden"), []byte(stdout))
		code, _, stderr = run(t, "collect", "--kubeconfig", kcfg, "--as", "alice", "--config", tenant, "-n", "team-b")
		if code != collect.ExitPartial || !strings.Contains(stderr, "forbidden") {
			t.Fatalf("-n of a namespace alice may not read: exit %d, stderr %s; want 1 naming forbidden", code, stderr)
		}
	})

	t.Run("get lists with Ready and the reason, like kubectl get", func(t *testing.T) {
		created := getFixtures(ctx, t, k)
		var out, errOut bytes.Buffer
		streams := cli.Streams{Out: &out, Err: &errOut, Now: func() time.Time { return created.Add(30 * time.Minute) }}
		for _, args := range [][]string{
			{"get", "inventories", "-A"},
			{"get", "inventories", "-n", "team-a", "-o", "wide"},
			{"get", "sinks", "-n", "team-a"},
			{"get", "targets", "-A"},
		} {
			out.Reset()
			if code := cli.Main(ctx, append(args, "--kubeconfig", kcfg), streams); code != 0 {
				t.Fatalf("%v: exit %d, stderr %s", args, code, errOut.String())
			}
			golden.Check(t, filepath.Join("testdata", strings.Join(args, "-")+".golden"), out.Bytes())
		}
		out.Reset()
		if code := cli.Main(ctx, []string{"get", "inventory", "workloads", "-n", "team-a", "-o", "json", "--kubeconfig", kcfg}, streams); code != 0 ||
			!strings.Contains(out.String(), `"kind": "List"`) || !strings.Contains(out.String(), `"name": "workloads"`) {
			t.Fatalf("-o json: exit %d, %s %s", code, out.String(), errOut.String())
		}
		if code := cli.Main(ctx, []string{"get", "inventory", "nope", "-n", "team-a", "--kubeconfig", kcfg}, streams); code != 1 {
			t.Fatalf("a missing name: exit %d", code)
		}
		t.Run("as kubectl get: NS/NAME, TYPE/NAME, -l, -o name, jsonpath, custom-columns, --no-headers", func(t *testing.T) {
			for _, tc := range []struct {
				args []string
				code int
				want string
			}{
				{[]string{"get", "inventory", "team-a/workloads", "-o", "name"}, 0, "kollectinventory.kollect.dev/workloads\n"},
				{[]string{"get", "inventory", "workloads", "-n", "team-a", "-o", "name"}, 0, "kollectinventory.kollect.dev/workloads\n"},
				{[]string{"get", "inventory/workloads", "-n", "team-a", "-o", "name"}, 0, "kollectinventory.kollect.dev/workloads\n"},
				{[]string{"get", "inventory/team-a/workloads", "-o", "jsonpath={.status.itemCount}"}, 0, "3"},
				{[]string{"get", "inventory", "team-a/workloads", "-n", "team-a", "-o", "jsonpath={.metadata.namespace}/{.metadata.name}"}, 0, "team-a/workloads"},
				{[]string{"get", "inventories", "-A", "-o", "jsonpath={.items[*].metadata.name}"}, 0, "fleet workloads"},
				{[]string{"get", "inventories", "-A", "-l", "team=a", "-o", "name"}, 0, "kollectinventory.kollect.dev/workloads\n"},
				{[]string{"get", "inventories", "-A", "-l", "team in (a,b)", "--no-headers", "-o", "custom-columns=NS:.metadata.namespace,NAME:.metadata.name,ITEMS:.status.itemCount"}, 0,
					"team-a   workloads   3\n"},
				{[]string{"get", "inventories", "-A", "-o", "custom-columns=NAME:.metadata.name,TEAM:.metadata.labels.team"}, 0,
					"NAME        TEAM\nfleet       <none>\nworkloads   a\n"},
				{[]string{"get", "inventories", "-A", "-l", "team=b"}, 0, ""},
				{[]string{"get", "inventory", "team-b/workloads"}, 1, ""},
				{[]string{"get", "inventory", "team-b/workloads", "-n", "team-a"}, 2, ""},
				{[]string{"get", "inventory", "workloads", "-n", "team-a", "-l", "team=a"}, 2, ""},
				{[]string{"get", "inventories", "-l", "team in (a"}, 2, ""},
			} {
				out.Reset()
				errOut.Reset()
				code := cli.Main(ctx, append(tc.args, "--kubeconfig", kcfg), streams)
				if code != tc.code || out.String() != tc.want {
					t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", tc.args, code, out.String(), errOut.String(), tc.code, tc.want)
				}
			}
			out.Reset()
			if code := cli.Main(ctx, []string{"get", "inventories", "-A", "--no-headers", "--kubeconfig", kcfg}, streams); code != 0 {
				t.Fatalf("--no-headers: exit %d, stderr %s", code, errOut.String())
			}
			golden.Check(t, filepath.Join("testdata", "get-inventories--A--no-headers.golden"), out.Bytes())
		})
		t.Run("-v 6 logs each request to the API server on standard error, as kubectl's", func(t *testing.T) {
			out.Reset()
			errOut.Reset()
			if code := cli.Main(ctx, []string{"get", "inventories", "-n", "team-a", "-v", "6", "--kubeconfig", kcfg}, streams); code != 0 {
				t.Fatalf("exit %d, stderr %s", code, errOut.String())
			}
			if !strings.Contains(errOut.String(), "/apis/kollect.dev/v1alpha1/namespaces/team-a/kollectinventories") || !strings.Contains(errOut.String(), "200 OK") {
				t.Fatalf("stderr %q: want the request and its status", errOut.String())
			}
			errOut.Reset()
			if code := cli.Main(ctx, []string{"get", "inventories", "-n", "team-a", "--kubeconfig", kcfg}, streams); code != 0 || errOut.Len() != 0 {
				t.Fatalf("without -v: exit %d, stderr %q; want no log", code, errOut.String())
			}
		})
	})
}

// grant lets user list and get Deployments in ns, and nothing else.
func grant(ctx context.Context, t *testing.T, k *testenv.Kube, ns, user string) {
	t.Helper()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "read-deployments", Namespace: ns},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "read-deployments", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: user}}}
	if err := k.Client.Create(ctx, role); err != nil {
		t.Fatal(err)
	}
	if err := k.Client.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
}

// getFixtures creates inventories, sinks and targets with a Ready
// condition each and returns the latest creation time.
func getFixtures(ctx context.Context, t *testing.T, k *testenv.Kube) time.Time {
	t.Helper()
	ready := func(status metav1.ConditionStatus, reason, msg string) []metav1.Condition {
		return []metav1.Condition{{Type: "Ready", Status: status, Reason: reason, Message: msg, LastTransitionTime: metav1.Now()}}
	}
	inv := &v1alpha1.KollectInventory{ObjectMeta: metav1.ObjectMeta{Name: "workloads", Namespace: "team-a", Labels: map[string]string{"team": "a"}}}
	cinv := &v1alpha1.KollectClusterInventory{ObjectMeta: metav1.ObjectMeta{Name: "fleet"}}
	cinv.Spec.TargetRefs = []string{"images"}
	sink := &v1alpha1.KollectDatabaseSink{ObjectMeta: metav1.ObjectMeta{Name: "pg", Namespace: "team-a"}}
	tgt := &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Name: "images", Namespace: "team-b"}}
	tgt.Spec.ProfileRef.Name = "images"
	sink.Spec.Type = "postgres"
	sink.Spec.Endpoint = "postgres://pg.team-a:5432/inventory"
	sink.Spec.SecretRef = &v1alpha1.SecretReference{Name: "pg"}
	sink.Spec.Postgres = &v1alpha1.PostgresSink{Table: "inventory"}
	var latest time.Time
	for _, step := range []struct {
		create func() error
		status func() error
	}{
		{func() error { return k.Client.Create(ctx, inv) }, func() error {
			inv.Status.Conditions = append(ready(metav1.ConditionFalse, "ExportFailed", "database/pg: connection refused"),
				metav1.Condition{Type: "Synced", Status: metav1.ConditionTrue, Reason: "Synced", LastTransitionTime: metav1.Now()})
			inv.Status.ItemCount = 3
			inv.Status.History = &v1alpha1.HistoryStatus{Revisions: 12, OldestRevision: 4, Bytes: 5_400_000}
			return k.Client.Status().Update(ctx, inv)
		}},
		{func() error { return k.Client.Create(ctx, cinv) }, func() error {
			cinv.Status.Conditions = ready(metav1.ConditionTrue, "Succeeded", "exported revision 4")
			return k.Client.Status().Update(ctx, cinv)
		}},
		{func() error { return k.Client.Create(ctx, sink) }, func() error {
			sink.Status.Conditions = ready(metav1.ConditionFalse, "SecretNotFound", "Secret team-a/pg not found")
			return k.Client.Status().Update(ctx, sink)
		}},
		{func() error { return k.Client.Create(ctx, tgt) }, func() error {
			tgt.Status.Conditions = ready(metav1.ConditionTrue, "Succeeded", "collecting 1 namespace")
			tgt.Status.CollectedCount = 1
			return k.Client.Status().Update(ctx, tgt)
		}},
	} {
		if err := step.create(); err != nil {
			t.Fatal(err)
		}
		if err := step.status(); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range []metav1.Object{inv, cinv, sink, tgt} {
		if c := o.GetCreationTimestamp().Time; c.After(latest) {
			latest = c
		}
	}
	return latest
}
