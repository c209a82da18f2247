package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kollect.dev/kollect/services/cli"
)

// TestInitScaffoldsWhatValidateAccepts: for a built-in resource with both sinks and for a
// custom kind with an attribute, init's files pass kollect validate (which applies the CRD
// schemas, CEL rules and compilers), and the printed form passes it through standard input.
func TestInitScaffoldsWhatValidateAccepts(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{name: "deployments to Git and PostgreSQL",
			args: []string{"--kind", "deployments.apps", "-n", "shop", "--sink", "git=https://git.example.com/you/inventory.git", "--sink", "postgres=pg"},
			want: []string{"kind: Deployment", "snapshotSinkRefs: [deployments-git]", "databaseSinkRefs: [deployments-db]", "resources: [deployments]"}},
		{name: "a custom kind with an attribute",
			args: []string{"--kind", "Certificate.v1.cert-manager.io", "-n", "certs", "--name", "tls-certs", "--attr", "expires=$.status.notAfter", "--sink", "postgres=pg"},
			want: []string{"group: \"cert-manager.io\"", "path: '$.status.notAfter'", "table: tls_certs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			code, _, stderr := run(t, append([]string{"init", "--output-dir", dir}, tc.args...)...)
			if code != 0 {
				t.Fatalf("init exit %d: %s", code, stderr)
			}
			var all strings.Builder
			for _, f := range []string{"10-profile.yaml", "20-target.yaml", "30-sinks.yaml", "40-inventory.yaml"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				all.Write(b)
			}
			for _, w := range tc.want {
				if !strings.Contains(all.String(), w) {
					t.Errorf("the scaffold lacks %q:\n%s", w, all.String())
				}
			}
			if code, out, stderr := run(t, "validate", dir); code != 0 {
				t.Fatalf("validate of init's files: exit %d\n%s%s", code, out, stderr)
			}
			_, printed, _ := run(t, append([]string{"init"}, tc.args...)...)
			var out, errOut bytes.Buffer
			code = cli.Main(context.Background(), []string{"validate", "-o", "json", "-"}, cli.Streams{Out: &out, Err: &errOut, In: strings.NewReader(printed)})
			var rep struct {
				Valid   bool `json:"valid"`
				Objects int  `json:"objects"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil || code != 0 || !rep.Valid || rep.Objects < 4 {
				t.Fatalf("validate -o json - of the printed scaffold: exit %d, %+v, %v\n%s%s", code, rep, err, out.String(), errOut.String())
			}
		})
	}
}

// TestInitTakesTheContextsNamespace: without -n, init scaffolds into the
// kubeconfig context's namespace, as kubectl does; -n wins; with no
// kubeconfig at all it asks for -n.
func TestInitTakesTheContextsNamespace(t *testing.T) {
	kcfg := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kcfg, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c1, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u1, user: {token: x}}]
contexts: [{name: shop, context: {cluster: c1, user: u1, namespace: shop}}]
current-context: shop
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kubeconfig", kcfg}, "namespace: shop\n"},
		{[]string{"--kubeconfig", kcfg, "-n", "tools"}, "namespace: tools\n"},
	} {
		code, stdout, stderr := run(t, append([]string{"init", "--kind", "deploy", "--sink", "postgres=pg"}, tc.args...)...)
		if code != 0 || !strings.Contains(stdout, tc.want) || strings.Contains(stdout, "namespace: default") {
			t.Errorf("%v: exit %d, stderr %s; want every object in %q:\n%s", tc.args, code, stderr, tc.want, stdout)
		}
	}
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	t.Setenv("HOME", t.TempDir())
	code, _, stderr := run(t, "init", "--kind", "deploy", "--sink", "postgres=pg")
	if code != 2 || !strings.Contains(stderr, "no -n/--namespace, and no kubeconfig context") {
		t.Errorf("no kubeconfig: exit %d, stderr %q; want 2 asking for -n", code, stderr)
	}
}

func TestInitRefusesWhatItCannotScaffold(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "widgets", "-n", "a", "--sink", "postgres=pg"}, "Kind.version.group"},
		{[]string{"--kind", "deploy", "-n", "a", "--sink", "s3=bucket"}, "git=HTTPS_URL or postgres=SECRET_NAME"},
		{[]string{"--kind", "deploy", "-n", "a", "--sink", "postgres=a", "--sink", "postgres=b"}, "postgres named twice"},
		{[]string{"--kind", "deploy", "-n", "a", "--sink", "git=u", "--attr", "noequals"}, "NAME=JSONPATH"},
		{[]string{"--kind", "deploy", "-n", "a"}, `"sink" not set`},
	} {
		code, _, stderr := run(t, append([]string{"init"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("init %v: exit %d, stderr %q; want exit 2 naming %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestValidateJSONReportsFindings: -o json reports an invalid object as an error finding
// naming the field, with exit status 2.
func TestValidateJSONReportsFindings(t *testing.T) {
	doc := "apiVersion: kollect.dev/v1alpha1\nkind: KollectInventory\nmetadata: {name: i, namespace: a}\nspec: {exportEvery: 5m}\n"
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), []string{"validate", "-o", "json", "-"}, cli.Streams{Out: &out, Err: &errOut, In: strings.NewReader(doc)})
	var rep struct {
		Valid    bool
		Errors   int
		Findings []struct{ Source, Level, Message string }
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("-o json printed %q: %v", out.String(), err)
	}
	if code != 2 || rep.Valid || rep.Errors != 1 || len(rep.Findings) != 1 || rep.Findings[0].Level != "error" ||
		!strings.Contains(rep.Findings[0].Message, "spec.exportEvery") || rep.Findings[0].Source != "-" {
		t.Errorf("exit %d, report %+v", code, rep)
	}
}
