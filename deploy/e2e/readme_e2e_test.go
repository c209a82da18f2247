//go:build e2ecluster

package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// readmeBudget is the bound from `helm install` to a Ready first inventory.
const readmeBudget = 10 * time.Minute

// notesApply finds the `kubectl apply -f X [-f Y...]` commands of the chart's NOTES (lines
// continued with a backslash joined first); notesFile the paths of one.
var (
	notesApply = regexp.MustCompile(`kubectl apply((?:\s+-f\s+\S+)+)`)
	notesFile  = regexp.MustCompile(`-f\s+(\S+)`)
)

// inClusterExample is the folder the NOTES' next step applies: the only objects that become
// Ready on a cluster where only Kollect runs.
const inClusterExample = "docs/examples/in-cluster/"

// readmeRoute runs the README's helm route: the CRDs chart, the chart with values-small.yaml
// and the local build as image.registry/image.tag, then the NOTES' next step (kubectl apply
// -f docs/examples/in-cluster/), until the inventory is Ready within readmeBudget of the
// first helm install. Then kollect's history through the query service, and the release
// goes (the CRDs release stays) for the scenario. It returns false when the scenario cannot
// follow.
func (s *scenario) readmeRoute() bool {
	t, rep := s.t, s.rep
	ok := rep.step(t, "the README's helm route: kollect-crds, kollect -f values-small.yaml with image.registry/image.tag; kubectl apply -f docs/examples/in-cluster/; the inventory Ready within 10 min", s.readmeInstall)
	if ok {
		rep.step(t, "the NOTES' kubectl apply commands name only "+inClusterExample, s.readmeNotes)
		rep.step(t, "kollect history of the in-cluster inventory through the query service (kubectl get inventoryrevisions)", s.readmeHistory)
	}
	return ok && rep.step(t, "the README's example deleted and the release uninstalled (kollect-crds stays)", s.readmeCleanup)
}

// readmeBlock is README.md's helm route, the block after `<!-- readme-test: helm -->`
// (docs/readme_test.go checks its images and renders it without a kubelet).
var readmeBlock = regexp.MustCompile("(?s)<!-- readme-test: helm -->\n```\\w*\n(.*?)```")

// readmeCommands returns the README's helm route, one command per line (continuations joined).
func readmeCommands(t *testing.T, repo string) [][]string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := readmeBlock.FindStringSubmatch(string(page))
	if m == nil {
		t.Fatal("README.md has no <!-- readme-test: helm --> block")
	}
	var cmds [][]string
	for _, line := range strings.Split(strings.ReplaceAll(m[1], "\\\n", " "), "\n") {
		if line, _, _ = strings.Cut(line, "#"); strings.TrimSpace(line) != "" {
			cmds = append(cmds, strings.Fields(line))
		}
	}
	return cmds
}

// readmeInstall runs the README's helm route as it is written, with three substitutions:
// `make images PUSH=...` is the image build and import of the steps before (the same builder,
// deploy/images), so the helm install names the imported build (image.registry and image.tag
// of this run) and the NATS image built here; paths are the repository's. The kubectl apply
// is retried while control's webhook has no endpoint yet; the route must reach a Synced
// inventory within readmeBudget of the first helm install.
func (s *scenario) readmeInstall(t *testing.T) {
	natsPVs(t, s.c, s.dir, "e2e-small-nats", 1)
	kollect := filepath.Join(s.dir, "kollect")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", kollect, "./cmd/kollect")
	build.Dir = s.repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/kollect: %v\n%s", err, out)
	}
	var t0 time.Time
	var history string
	for _, c := range readmeCommands(t, s.repo) {
		args := s.repoPaths(c[1:])
		switch {
		case c[0] == "make" && len(c) > 1 && c[1] == "images":
			// Built and imported by the steps before.
		case c[0] == "helm" && len(c) > 3 && c[1] == "install":
			if t0.IsZero() {
				t0 = time.Now()
			}
			for i := range args {
				if strings.HasPrefix(args[i], "image.registry=") {
					args[i] = "image.registry=" + buildRegistry
				}
			}
			if c[2] == "kollect" {
				args = append(args, "--set", "image.tag="+s.tag, "--set", "nats.image.repository="+natsRepo, "--set", "nats.image.tag="+natsTag)
			}
			out := run(t, s.c.Admin, s.helm, args...)
			if c[2] == "kollect-crds" {
				s.crds = true
			} else {
				s.notes = out
			}
		case c[0] == "kubectl" && len(c) > 1 && c[1] == "apply":
			waitFor(t, readmeBudget, "kubectl "+strings.Join(c[1:], " "), func() error {
				_, err := kubectlErr(t, s.c.Admin, s.kubectl, args...)
				return err
			})
		case c[0] == "kubectl":
			if _, err := kubectlErr(t, s.c.Admin, s.kubectl, args...); err != nil {
				t.Fatalf("%v%s", err, podProblems(t.Context(), s.c.Client, ns))
			}
		case c[0] == "./kollect":
			history = run(t, s.c.Admin, kollect, args...)
		default:
			t.Fatalf("the README's helm route has a command this test does not know: %s", strings.Join(c, " "))
		}
	}
	if t0.IsZero() || s.notes == "" || history == "" {
		t.Fatalf("the README's helm route installed no chart or read no history")
	}
	took := time.Since(t0)
	s.rep.notes = append(s.rep.notes, fmt.Sprintf("README route: from the first `helm install` to the in-cluster inventory Synced took %v (bound: %v); then `kollect history kollect-demo/demo` printed:\n\n```\n%s```", took.Round(time.Second), readmeBudget, history))
	t.Logf("helm install to a Synced inventory: %v; kollect history:\n%s", took.Round(time.Second), history)
	if took > readmeBudget {
		t.Errorf("helm install to a Synced inventory took %v, more than %v", took.Round(time.Second), readmeBudget)
	}
	if !strings.HasPrefix(history, "REVISION") || strings.Count(history, "\n") < 2 {
		t.Errorf("kollect history printed no revision:\n%s", history)
	}
	s.checkImages(t)
	s.rep.sample(t, s.c)
}

// repoPaths makes the arguments that name a file or folder of the repository absolute.
func (s *scenario) repoPaths(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if strings.HasPrefix(a, "charts/") || strings.HasPrefix(a, "docs/") {
			if _, err := os.Stat(filepath.Join(s.repo, a)); err == nil {
				out[i] = filepath.Join(s.repo, a) + map[bool]string{true: "/"}[strings.HasSuffix(a, "/")]
			}
		}
	}
	return out
}

// readmeNotes checks that every `kubectl apply -f` the chart's NOTES print names the in-cluster
// example, the one folder whose objects become Ready on a bare cluster (readmeInstall checks
// they do).
func (s *scenario) readmeNotes(t *testing.T) {
	var files []string
	for _, m := range notesApply.FindAllStringSubmatch(strings.ReplaceAll(s.notes, "\\\n", " "), -1) {
		for _, f := range notesFile.FindAllStringSubmatch(m[1], -1) {
			files = append(files, f[1])
		}
	}
	if len(files) == 0 {
		t.Fatalf("the NOTES print no kubectl apply -f; want one of %s:\n%s", inClusterExample, s.notes)
	}
	for _, f := range files {
		if !strings.Contains(f, strings.TrimSuffix(inClusterExample, "/")) {
			t.Errorf("the NOTES apply %s, not %s: its objects need more than Kollect to become Ready", f, inClusterExample)
		}
	}
	t.Logf("the NOTES apply %v", files)
}

// checkImages checks every Kollect pod runs the imported build, named by image.registry and
// image.tag.
func (s *scenario) checkImages(t *testing.T) {
	t.Helper()
	pods, err := s.c.Client.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pods.Items {
		for _, c := range p.Spec.Containers {
			if strings.HasPrefix(c.Image, natsRepo+":") {
				continue
			}
			n++
			if !strings.HasPrefix(c.Image, buildRegistry+"/") || !strings.HasSuffix(c.Image, ":"+s.tag) {
				t.Errorf("pod %s runs %s, want %s/<binary>:%s", p.Name, c.Image, buildRegistry, s.tag)
			}
		}
	}
	if n == 0 {
		t.Error("no Kollect container in namespace " + ns)
	}
}

// readmeHistory reads the inventory's revisions through the API server's aggregation layer
// (the query service), as kollect history does.
func (s *scenario) readmeHistory(t *testing.T) {
	if _, err := kubectlErr(t, s.c.Admin, s.kubectl, "get", "apiservice", "v1alpha1.query.kollect.dev"); err != nil {
		s.rep.notes = append(s.rep.notes, "The query service was not enabled by these values: history not read.")
		t.Skipf("no APIService v1alpha1.query.kollect.dev (query disabled in these values): %v", err)
	}
	waitFor(t, 5*time.Minute, "a revision of kollect-demo/demo through the query service", func() error {
		out, err := kubectlErr(t, s.c.Admin, s.kubectl, "-n", "kollect-demo", "get", "inventoryrevisions", "-l", "kollect.dev/inventory=demo")
		if err != nil {
			return err
		}
		if !strings.Contains(out, "demo.") {
			return fmt.Errorf("no revision listed: %s", out)
		}
		t.Logf("kubectl get inventoryrevisions:\n%s", out)
		return nil
	})
}

func (s *scenario) readmeCleanup(t *testing.T) {
	ctx := t.Context()
	run(t, s.c.Admin, s.kubectl, "delete", "-f", filepath.Join(s.repo, "docs/examples/in-cluster")+"/", "--wait", "--timeout", "3m")
	run(t, s.c.Admin, s.helm, "uninstall", "kollect", "--namespace", ns, "--wait", "--timeout", "3m")
	// NATS's claim outlives the release; the scenario's NATS starts on volumes of its own.
	if err := s.c.Client.CoreV1().PersistentVolumeClaims(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 3*time.Minute, "no pods and claims left in "+ns, func() error {
		pods, err := s.c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		pvcs, err := s.c.Client.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if len(pods.Items)+len(pvcs.Items) > 0 {
			return fmt.Errorf("%d pods, %d claims left%s", len(pods.Items), len(pvcs.Items), podProblems(ctx, s.c.Client, ns))
		}
		return nil
	})
}

// kubectlErr runs kubectl and returns its output and error, for waits that retry.
func kubectlErr(t *testing.T, kubeconfig, bin string, args ...string) (string, error) {
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return out.String(), nil
}
