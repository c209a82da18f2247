//go:build e2ecluster

package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/deploy/e2e"
)

// report records what ran, how long each step took and every pod's peak memory, and
// writes it as markdown when the test ends.
type report struct {
	start      time.Time
	loadStart  string // /proc/loadavg when the run started
	steps      []string
	components []string
	peak       map[string]int64 // namespace/pod -> the pod cgroup's peak memory (bytes)
	notes      []string         // what the run measured or stood in for, one sentence each
}

func newReport(t *testing.T, path string) *report {
	r := &report{start: time.Now(), peak: map[string]int64{}, loadStart: loadAverage()}
	if path != "" {
		t.Cleanup(func() {
			if err := os.WriteFile(path, []byte(r.markdown(t.Failed())), 0o644); err != nil {
				t.Errorf("write the report: %v", err)
			}
			t.Logf("report written to %s", path)
		})
	}
	return r
}

// step runs fn as a subtest and records its outcome and duration.
func (r *report) step(t *testing.T, name string, fn func(t *testing.T)) bool {
	t0 := time.Now()
	ok := t.Run(name, fn)
	mark := "ok"
	if !ok {
		mark = "**FAILED** (see the test log)"
	}
	r.steps = append(r.steps, fmt.Sprintf("| %s | %s | %s |", name, time.Since(t0).Round(time.Second), mark))
	return ok
}

// versions records the components' versions.
func (r *report) versions(t *testing.T, c *e2e.Cluster, kubectl string) {
	out := func(bin string, args ...string) string {
		b, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			return "unknown (" + err.Error() + ")"
		}
		return strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	}
	node, err := c.Client.CoreV1().Nodes().Get(t.Context(), c.NodeName(), metav1.GetOptions{})
	if err == nil {
		ni := node.Status.NodeInfo
		r.components = append(r.components, "kubelet "+ni.KubeletVersion, "container runtime "+ni.ContainerRuntimeVersion,
			"kernel "+ni.KernelVersion+", "+ni.OSImage)
	}
	r.components = append(r.components, "runc: "+out("runc", "--version"), "kubectl: "+out(kubectl, "version", "--client"),
		"Go "+runtime.Version())
}

// sample reads the peak memory of every pod's cgroup (cgroups v1:
// memory.max_usage_in_bytes of kubepods/<qos>/pod<uid>), keeping each pod's highest.
func (r *report) sample(t *testing.T, c *e2e.Cluster) {
	pods, err := c.Client.CoreV1().Pods("").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Errorf("list pods for memory: %v", err)
		return
	}
	for _, p := range pods.Items {
		uid := "pod" + string(p.UID)
		matches, _ := filepath.Glob("/sys/fs/cgroup/memory/kubepods/*/" + uid + "/memory.max_usage_in_bytes")
		direct, _ := filepath.Glob("/sys/fs/cgroup/memory/kubepods/" + uid + "/memory.max_usage_in_bytes")
		for _, m := range append(matches, direct...) {
			b, err := os.ReadFile(m)
			if err != nil {
				continue
			}
			v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			if err == nil && v > r.peak[p.Namespace+"/"+p.Name] {
				r.peak[p.Namespace+"/"+p.Name] = v
			}
		}
	}
}

func (r *report) markdown(failed bool) string {
	var b strings.Builder
	result := "every step passed"
	if failed {
		result = "a step failed (the steps below say which; a failed install or export step ends the run)"
	}
	fmt.Fprintf(&b, "# make e2e-cluster: the Helm install on a real single-node cluster\n\n")
	fmt.Fprintf(&b, "Run %s, %s in %s, at commit %s. Result: %s.\n", r.start.UTC().Format("2006-01-02 15:04 MST"),
		"deploy/e2e TestHelmInstallOnARealNode", time.Since(r.start).Round(time.Second), commit(), result)
	fmt.Fprintf(&b, "Load average (1, 5, 15 min) %s at the start and %s at the end, on %d cores.\n", r.loadStart, loadAverage(), runtime.NumCPU())
	fmt.Fprintf(&b, "How it runs and what each step does: docs/e2e-cluster.md.\n\n## Components\n\n")
	for _, v := range r.components {
		fmt.Fprintf(&b, "- %s\n", v)
	}
	fmt.Fprintf(&b, "\n## Steps\n\n| step | took | result |\n|---|---|---|\n%s\n", strings.Join(r.steps, "\n"))
	if len(r.notes) > 0 {
		fmt.Fprintf(&b, "\n## Notes\n\n")
		for _, n := range r.notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	fmt.Fprintf(&b, "\n## Peak memory of each pod\n\nThe pod cgroup's `memory.max_usage_in_bytes` (cgroups v1; includes the page cache the pod caused),\n")
	fmt.Fprintf(&b, "sampled after the install and after the upgrade; a pod replaced by the rollout keeps its last sample.\n\n")
	names := make([]string, 0, len(r.peak))
	for n := range r.peak {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(&b, "| pod | peak memory |\n|---|---|\n")
	for _, n := range names {
		fmt.Fprintf(&b, "| %s | %.1f MiB |\n", n, float64(r.peak[n])/(1<<20))
	}
	if len(names) == 0 {
		fmt.Fprintf(&b, "| (no sample: the run ended before the install) | |\n")
	}
	return b.String()
}

// commit is the checked-out commit, with "+changes" when the work tree differs from it.
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	// The report itself, written by the previous run, is no change of the code.
	if err := exec.Command("git", "diff", "--quiet", "HEAD", "--", ":/", ":(exclude,top)loadtest/results").Run(); err != nil {
		c += "+changes"
	}
	return c
}

// loadAverage is the machine's 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
