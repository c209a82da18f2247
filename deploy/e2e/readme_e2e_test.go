//go:build e2ecluster

package e2e_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// readmeBudget is the bound from `helm install` to a Ready first inventory.
const readmeBudget = 10 * time.Minute

// smallValuesStandIn stands in for charts/kollect/values-small.yaml while that file is not on
// this branch: one replica of every service, one NATS server, the query service on.
const smallValuesStandIn = `# stand-in for charts/kollect/values-small.yaml (written by deploy/e2e)
control: {replicas: 1}
collector: {replicas: 1}
aggregator: {replicas: 1}
exporters:
  snapshot: {replicas: 1}
  database: {replicas: 1}
  event: {replicas: 1}
query: {enabled: true, replicas: 1}
nats: {replicas: 1}
`

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

func (s *scenario) readmeInstall(t *testing.T) {
	values := filepath.Join(s.repo, "charts/kollect/values-small.yaml")
	if _, err := os.Stat(values); err != nil {
		values = filepath.Join(s.dir, "values-small.yaml")
		writeFile(t, values, smallValuesStandIn)
		s.rep.notes = append(s.rep.notes, "charts/kollect/values-small.yaml was absent: the README route used the stand-in of deploy/e2e/readme_e2e_test.go (one replica each, one NATS, query on).")
		t.Logf("charts/kollect/values-small.yaml absent: a stand-in with one replica each and one NATS")
	}
	natsPVs(t, s.c, s.dir, "e2e-small-nats", 1)
	t0 := time.Now()
	run(t, s.c.Admin, s.helm, "install", "kollect-crds", filepath.Join(s.repo, "charts/kollect-crds"))
	s.crds = true
	s.notes = run(t, s.c.Admin, s.helm, "install", "kollect", filepath.Join(s.repo, "charts/kollect"), "--namespace", ns, "--create-namespace",
		"-f", values, "--set", "image.registry="+buildRegistry, "--set", "image.tag="+s.tag,
		"--set", "nats.image.repository="+natsRepo, "--set", "nats.image.tag="+natsTag)
	// The NOTES' first step: the rollout of control, whose webhook admits the example.
	waitFor(t, readmeBudget, "deployment control Ready", func() error {
		d, err := s.c.Client.AppsV1().Deployments(ns).Get(t.Context(), componentDeployment(t, s.c, "control"), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Status.ReadyReplicas < 1 {
			return fmt.Errorf("%d ready replicas%s", d.Status.ReadyReplicas, podProblems(t.Context(), s.c.Client, ns))
		}
		return nil
	})
	// The NOTES' next step (readmeNotes checks they name this folder), retried while the
	// webhook has no endpoint yet.
	waitFor(t, 2*time.Minute, "kubectl apply -f "+inClusterExample, func() error {
		_, err := kubectlErr(t, s.c.Admin, s.kubectl, "apply", "-f", filepath.Join(s.repo, inClusterExample)+"/")
		return err
	})
	waitFor(t, readmeBudget-time.Since(t0), "inventory kollect-demo/demo Ready and Synced with 2 items", func() error {
		out, err := kubectlErr(t, s.c.Admin, s.kubectl, "-n", "kollect-demo", "get", "kinv", "demo", "-o",
			`jsonpath={.status.itemCount} {.status.conditions[?(@.type=="Ready")].status} {.status.conditions[?(@.type=="Synced")].status}`)
		if err != nil {
			return err
		}
		if strings.TrimSpace(out) != "2 True True" {
			return fmt.Errorf("items, Ready, Synced: %q%s", out, podProblems(t.Context(), s.c.Client, ns))
		}
		return nil
	})
	took := time.Since(t0)
	s.rep.notes = append(s.rep.notes, fmt.Sprintf("README route: `helm install kollect-crds` to the in-cluster inventory Ready (2 items) took %v (bound: %v).", took.Round(time.Second), readmeBudget))
	t.Logf("helm install to a Ready inventory: %v", took.Round(time.Second))
	if took > readmeBudget {
		t.Errorf("helm install to a Ready inventory took %v, more than %v", took.Round(time.Second), readmeBudget)
	}
	s.checkImages(t)
	s.rep.sample(t, s.c)
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
