package docs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"kollect.dev/kollect/pkg/testenv"
)

// readmeBlock matches a fenced block of README.md with the readme-test
// marker before it.
var readmeBlock = regexp.MustCompile("(?s)<!-- readme-test: ([a-z-]+) -->\n```\\w*\n(.*?)```")

// readmeBlocks returns the README's marked blocks by marker, each marker
// once.
func readmeBlocks(t *testing.T) (root string, blocks map[string]string) {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks = map[string]string{}
	for _, m := range readmeBlock.FindAllStringSubmatch(string(page), -1) {
		if blocks[m[1]] != "" {
			t.Fatalf("README.md has two %q blocks", m[1])
		}
		blocks[m[1]] = m[2]
	}
	for _, want := range []string{"collect", "expect", "helm"} {
		if blocks[want] == "" {
			t.Fatalf("README.md lacks the %q block (<!-- readme-test: %s --> before a fenced block)", want, want)
		}
	}
	return root, blocks
}

// TestTheReadmesCollectCommandPrintsWhatTheReadmeShows runs the README's
// first way in, the `kollect collect` block, against a real API server
// holding the Deployment the README shows, and compares its output with
// the README's. The binary is built into the test's folder instead of the
// checkout (`-o kollect` and `./kollect` name that path).
func TestTheReadmesCollectCommandPrintsWhatTheReadmeShows(t *testing.T) {
	root, blocks := readmeBlocks(t)
	kube := testenv.StartKube(t)
	createDeployment(t, kube, "shop", "web", "nginx:1.27")

	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, kube.Env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "kollect")
	script := blocks["collect"]
	if !strings.Contains(script, "-o kollect ") || !strings.Contains(script, "./kollect ") {
		t.Fatalf("the collect block no longer builds ./kollect; update this test:\n%s", script)
	}
	script = strings.ReplaceAll(script, "-o kollect ", "-o "+bin+" ")
	script = strings.ReplaceAll(script, "./kollect ", bin+" ")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the README's collect block failed: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if got, want := normalizeTable(stdout.String()), normalizeTable(blocks["expect"]); got != want {
		t.Errorf("kollect collect printed\n%s\nthe README shows\n%s", stdout.String(), blocks["expect"])
	}
}

// TestTheReadmesHelmRouteInstallsWhatMakeImagesPushes checks the README's
// second way in without a kubelet (deploy/e2e runs it on a real node,
// docs/e2e-cluster.md): each `helm install` line renders with `helm
// template` and the same arguments, every image it names is the
// `<PUSH>/<binary>:<tag>` that `make images PUSH=...` pushes, and the
// first inventory's objects are admitted by a real API server.
func TestTheReadmesHelmRouteInstallsWhatMakeImagesPushes(t *testing.T) {
	root, blocks := readmeBlocks(t)
	lines := strings.Split(strings.ReplaceAll(blocks["helm"], "\\\n", ""), "\n")
	var push, tag string
	var installs, applies int
	helm, err := testenv.Tool("bin/helm")
	if err != nil {
		t.Fatal(err)
	}
	kubectl, err := testenv.Tool("envtest/kubectl")
	if err != nil {
		t.Fatal(err)
	}
	kube := testenv.StartKube(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, kube.Env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, line := range lines {
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case f[0] == "make" && len(f) == 3 && f[1] == "images" && strings.HasPrefix(f[2], "PUSH="):
			push = strings.TrimPrefix(f[2], "PUSH=")
			out := run(t, root, nil, "make", "-s", "-n", "images", f[2])
			m := regexp.MustCompile(`-version (\S+) .*-push (\S+)`).FindStringSubmatch(out)
			if m == nil || m[2] != push {
				t.Fatalf("make -n images %s does not push to %s:\n%s", f[2], push, out)
			}
			tag = m[1]
		case f[0] == "helm" && f[1] == "install":
			installs++
			args := []string{"template"}
			for _, a := range f[2:] {
				if a != "--create-namespace" {
					args = append(args, a)
				}
			}
			out := run(t, root, nil, helm, args...)
			for _, img := range regexp.MustCompile(`image: "?([^"\s]+)`).FindAllStringSubmatch(out, -1) {
				if strings.Contains(img[1], "nats") {
					continue // NATS comes from its own image value, not from make images
				}
				if push == "" || !strings.HasPrefix(img[1], push+"/") || !strings.HasSuffix(img[1], ":"+tag) {
					t.Errorf("%s renders image %s, not the %s/<binary>:%s that make images pushes", line, img[1], push, tag)
				}
			}
		case f[0] == "kubectl" && f[1] == "apply":
			applies++
			run(t, root, []string{"KUBECONFIG=" + kubeconfig}, kubectl, f[1:]...)
		case f[0] == "kubectl" && (f[1] == "-n" || f[1] == "wait") || f[0] == "./kollect":
			// Waiting for Synced and reading history need every service
			// running: deploy/e2e runs these on a real node.
		default:
			t.Errorf("the README's helm block has a line this test does not know: %s", line)
		}
	}
	if push == "" || installs != 2 || applies != 1 {
		t.Errorf("the helm block has make images %q, %d helm installs and %d kubectl applies; want a push, 2 and 1", push, installs, applies)
	}
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out)
}

func createDeployment(t *testing.T, kube *testenv.Kube, ns, name, image string) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: image}}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// normalizeTable trims lines and collapses runs of spaces, so that a
// table matches whatever its column widths.
func normalizeTable(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// TestTheReadmesOutputsAreTheTestedOnes checks that the Git file and the
// SQL row the README shows are outputs docs/getting-started.md expects,
// which TestGettingStarted (docs/examples/quickstart) checks against a
// real Git server and PostgreSQL.
func TestTheReadmesOutputsAreTheTestedOnes(t *testing.T) {
	root, _ := readmeBlocks(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "getting-started.md"))
	if err != nil {
		t.Fatal(err)
	}
	shown := regexp.MustCompile("(?s)```(?:yaml|text)\n(attributes:.*?|.*?resource_name.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(shown) != 2 {
		t.Fatalf("README.md shows %d of the two outputs (a Git file, a SQL row)", len(shown))
	}
	for _, s := range shown {
		if !strings.Contains(normalizeTable(string(page)), normalizeTable(s[1])) {
			t.Errorf("docs/getting-started.md expects no such output; the README shows:\n%s", s[1])
		}
	}
}
