package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/tree"
	"kollect.dev/kollect/services/cli"
	"kollect.dev/kollect/services/cli/internal/collect"
)

const config = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: images, namespace: team-a}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes:
  - {name: image, path: "$.spec.template.spec.containers[0].image", type: string}
  - {name: containers, path: "cel:size(object.spec.template.spec.containers)", type: int}
  - {name: owner, path: "{.metadata.labels.owner}", optional: true}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: prod-deploys, namespace: team-a}
spec:
  profileRef: {name: images}
  namespaceSelector: {matchLabels: {env: prod}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: workloads, namespace: team-a}
spec: {}
`

// kubeconfig writes a kubeconfig for an admin user of k and returns its path.
func kubeconfig(t testing.TB, k *testenv.Kube) string {
	t.Helper()
	u, err := k.Env.ControlPlane.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := u.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func namespace(ctx context.Context, t testing.TB, c client.Client, name string, labels map[string]string) {
	t.Helper()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}); err != nil {
		t.Fatal(err)
	}
}

func deployment(ctx context.Context, t testing.TB, c client.Client, ns, name string, labels map[string]string, images ...string) *appsv1.Deployment {
	t.Helper()
	var containers []corev1.Container
	for i, img := range images {
		containers = append(containers, corev1.Container{Name: "c" + string(rune('0'+i)), Image: img,
			Env: []corev1.EnvVar{{Name: "DB_PASSWORD", Value: "hunter2"}}})
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: containers},
			},
		},
	}
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	return d
}

func writeConfig(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main(context.Background(), args, cli.Streams{Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

func TestCollect(t *testing.T) {
	k := testenv.StartKube(t)
	ctx := context.Background()
	kcfg := kubeconfig(t, k)
	namespace(ctx, t, k.Client, "team-a", map[string]string{"env": "prod"})
	namespace(ctx, t, k.Client, "team-b", map[string]string{"env": "prod"})
	namespace(ctx, t, k.Client, "dev", map[string]string{"env": "dev"})
	web := deployment(ctx, t, k.Client, "team-a", "web", map[string]string{"owner": "alice"}, "nginx:1.27", "envoy:1.30")
	api := deployment(ctx, t, k.Client, "team-b", "api", nil, "api:2.1")
	deployment(ctx, t, k.Client, "dev", "scratch", nil, "busybox:1")
	dir := writeConfig(t, map[string]string{"kollect.yaml": config})

	t.Run("collects the selected namespaces into one NDJSON record per inventory", func(t *testing.T) {
		code, stdout, stderr := run(t, "collect", "--config", dir, "--kubeconfig", kcfg)
		if code != collect.ExitOK {
			t.Fatalf("exit %d, stderr: %s", code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != 1 {
			t.Fatalf("got %d records, want 1:\n%s", len(lines), stdout)
		}
		var rec collect.Record
		if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
			t.Fatal(err)
		}
		want := []busv1.Row{
			{TargetNamespace: "team-a", TargetName: "prod-deploys", Namespace: "team-a", Name: "web", UID: string(web.UID),
				Group: "apps", Version: "v1", Kind: "Deployment",
				Attributes: map[string]any{"image": "nginx:1.27", "containers": float64(2), "owner": "alice"}},
			{TargetNamespace: "team-a", TargetName: "prod-deploys", Namespace: "team-b", Name: "api", UID: string(api.UID),
				Group: "apps", Version: "v1", Kind: "Deployment",
				Attributes: map[string]any{"image": "api:2.1", "containers": float64(1)}},
		}
		if diff := cmp.Diff(want, rec.Envelope.Items); diff != "" {
			t.Errorf("items (-want +got):\n%s", diff)
		}
		if rec.Inventory != "team-a/workloads" || rec.Envelope.ItemCount != 2 || rec.Envelope.Cluster == "" || len(rec.Envelope.Checksum) != 64 {
			t.Errorf("record header = %+v", rec)
		}
	})

	t.Run("pages of one object give the same rows as one page", func(t *testing.T) {
		// --page-size 1 makes every list (namespaces, Deployments) a chain
		// of continue tokens, each page requested while the last is decoded.
		code, one, stderr := run(t, "collect", "--config", dir, "--kubeconfig", kcfg, "--page-size", "1")
		if code != collect.ExitOK {
			t.Fatalf("exit %d, stderr: %s", code, stderr)
		}
		_, all, _ := run(t, "collect", "--config", dir, "--kubeconfig", kcfg)
		var a, b collect.Record
		if err := json.Unmarshal([]byte(one), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(all), &b); err != nil {
			t.Fatal(err)
		}
		if a.Envelope.ItemCount != 2 || a.Envelope.Checksum != b.Envelope.Checksum {
			t.Errorf("--page-size 1: %d items, checksum %s; one page: %s", a.Envelope.ItemCount, a.Envelope.Checksum, b.Envelope.Checksum)
		}
	})

	t.Run("writes the snapshot files a local sink would into --output-dir", func(t *testing.T) {
		out := t.TempDir()
		code, _, stderr := run(t, "collect", "--config", dir, "--kubeconfig", kcfg, "--output-dir", out, "-o", "json")
		if code != collect.ExitOK {
			t.Fatalf("exit %d, stderr: %s", code, stderr)
		}
		matches, _ := filepath.Glob(filepath.Join(out, "*", "inventory", "team-a", "workloads.json"))
		if len(matches) != 1 {
			t.Fatalf("files under %s: %v", out, matches)
		}
		var env busv1.Envelope
		b, _ := os.ReadFile(matches[0])
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		if env.ItemCount != 2 || len(env.Items) != 2 {
			t.Errorf("envelope holds %d items", env.ItemCount)
		}
	})

	t.Run("--output-dir holds exactly the files tree.Render makes of the collected envelope", func(t *testing.T) {
		code, stdout, stderr := run(t, "collect", "--config", dir, "--kubeconfig", kcfg)
		if code != collect.ExitOK {
			t.Fatalf("exit %d, stderr: %s", code, stderr)
		}
		var rec collect.Record
		if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &rec); err != nil {
			t.Fatal(err)
		}
		// Formats and layouts whose files hold rows only: exportedAt
		// differs between two runs.
		for _, layout := range []string{tree.ModeDocument, tree.ModePerResource} {
			for _, format := range []string{"yaml", "ndjson"} {
				t.Run(layout+" "+format, func(t *testing.T) {
					out := t.TempDir()
					code, _, stderr := run(t, "collect", "--config", dir, "--kubeconfig", kcfg, "--output-dir", out,
						"-o", format, "--layout", layout)
					if code != collect.ExitOK {
						t.Fatalf("exit %d, stderr: %s", code, stderr)
					}
					files, err := tree.Render(tree.Spec{Format: format, Mode: layout}, rec.Envelope)
					if err != nil {
						t.Fatal(err)
					}
					want := map[string]string{}
					for _, f := range files {
						want[tree.Sanitize(rec.Context)+"/"+f.Path] = string(f.Data)
					}
					if d := cmp.Diff(want, readTree(t, out)); d != "" {
						t.Fatalf("files under --output (-tree.Render +got):\n%s", d)
					}
				})
			}
		}
	})

	t.Run("an unknown --layout is invalid input", func(t *testing.T) {
		code, _, stderr := run(t, "collect", "--config", dir, "--kubeconfig", kcfg, "--output-dir", t.TempDir(), "--layout", "tree")
		if code != collect.ExitNothing || !strings.Contains(stderr, "--layout") {
			t.Errorf("exit %d, stderr %s; want 2 naming --layout", code, stderr)
		}
	})

	t.Run("a kind the cluster does not serve makes the run partial", func(t *testing.T) {
		broken := writeConfig(t, map[string]string{"kollect.yaml": config, "certs.yaml": `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: certs, namespace: team-a}
spec:
  targetGVK: {group: cert-manager.io, version: v1, kind: Certificate}
  attributes: [{name: dns, path: "$.spec.dnsNames"}]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: certs, namespace: team-a}
spec: {profileRef: {name: certs}, includedNamespaces: [team-a]}
`})
		code, stdout, stderr := run(t, "collect", "--config", broken, "--kubeconfig", kcfg)
		if code != collect.ExitPartial || !strings.Contains(stderr, "Certificate") || !strings.Contains(stdout, `"itemCount":2`) {
			t.Errorf("exit %d, stdout %s, stderr %s; want 1, the Deployments, and an error naming Certificate", code, stdout, stderr)
		}
	})

	t.Run("a Target whose Profile is missing is invalid input", func(t *testing.T) {
		bad := writeConfig(t, map[string]string{"t.yaml": `
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: orphan, namespace: team-a}
spec: {profileRef: {name: nope}}
`})
		code, _, stderr := run(t, "collect", "--config", bad, "--kubeconfig", kcfg)
		if code != collect.ExitNothing || !strings.Contains(stderr, "spec.profileRef") {
			t.Errorf("exit %d, stderr %s; want 2 naming spec.profileRef", code, stderr)
		}
	})
}

// readTree returns every file under dir by its '/'-separated relative path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
