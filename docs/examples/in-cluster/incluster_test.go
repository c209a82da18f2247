package incluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/cli"
	"kollect.dev/kollect/services/cli/dev"
)

// want are the rows the folder's inventory must hold: one per Deployment of 10-deployments.yaml,
// with the Profile's attributes (replicas an int).
var want = map[string]string{
	"web":    `{"images":["registry.k8s.io/pause:3.10"],"replicas":1}`,
	"worker": `{"images":["registry.k8s.io/pause:3.10"],"replicas":0}`,
}

// TestTheInClusterExampleBecomesReady applies docs/examples/in-cluster/ with kubectl, exactly
// as the chart's NOTES say, to a real API server where only Kollect runs (every service of
// `kollect dev` in this process, on its embedded bus), and waits until the inventory is Ready
// and Synced with one row per Deployment, on the bus as well as in its status. Nothing else is
// created first: the folder must be self-contained.
func TestTheInClusterExampleBecomesReady(t *testing.T) {
	root, err := testenv.RepoRoot()
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
	busFile := filepath.Join(t.TempDir(), "dev-bus.json")
	busURL := startServices(t, dev.Options{Rest: kube.Config, NATSPort: -1, BusFile: busFile})

	apply := exec.CommandContext(t.Context(), kubectl, "apply", "-f", "docs/examples/in-cluster/")
	apply.Dir, apply.Env = root, append(os.Environ(), "KUBECONFIG="+kubeconfig)
	out, err := apply.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl apply -f docs/examples/in-cluster/: %v\n%s", err, out)
	}
	t.Logf("kubectl apply:\n%s", out)

	ctx := t.Context()
	var inv v1alpha1.KollectInventory
	testenv.Eventually(t, 2*time.Minute, "inventory kollect-demo/demo Ready and Synced with 2 items", func() error {
		if err := kube.Client.Get(ctx, client.ObjectKey{Namespace: "kollect-demo", Name: "demo"}, &inv); err != nil {
			return err
		}
		for _, c := range []string{v1alpha1.ConditionReady, v1alpha1.ConditionSynced} {
			if !meta.IsStatusConditionTrue(inv.Status.Conditions, c) {
				return fmt.Errorf("%s not True: %+v", c, inv.Status.Conditions)
			}
		}
		if inv.Status.ItemCount != int64(len(want)) {
			return fmt.Errorf("itemCount %d, want %d", inv.Status.ItemCount, len(want))
		}
		return nil
	})
	// The Target's status folds the collector's report, which may come a
	// moment after the aggregator published the rows it sent.
	testenv.Eventually(t, 30*time.Second, "target kollect-demo/deployments Ready", func() error {
		var target v1alpha1.KollectTarget
		if err := kube.Client.Get(ctx, client.ObjectKey{Namespace: "kollect-demo", Name: "deployments"}, &target); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(target.Status.Conditions, v1alpha1.ConditionReady) {
			return fmt.Errorf("not Ready: %+v", target.Status.Conditions)
		}
		return nil
	})

	checkRows(t, busURL, busFile)

	// What a user types next: kollect get inventories lists it Ready with its 2 items.
	t.Setenv("KUBECONFIG", kubeconfig)
	var stdout, stderr bytes.Buffer
	if code := cli.Main(ctx, []string{"get", "inventories", "-n", "kollect-demo"}, cli.Streams{Out: &stdout, Err: &stderr}); code != 0 {
		t.Fatalf("kollect get inventories: exit %d\n%s", code, stderr.String())
	}
	if !rowHas(stdout.String(), "demo", "2", "True") {
		t.Errorf("kollect get inventories -n kollect-demo does not list demo with 2 items, Ready:\n%s", stdout.String())
	}
}

// startServices runs every Kollect service in this process until the test ends and returns
// the embedded bus's URL once they all run.
func startServices(t *testing.T, o dev.Options) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	o.Ready = func(url string) { ready <- url }
	go func() { done <- dev.Run(ctx, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("kollect dev: %v", err)
		}
	})
	select {
	case url := <-ready:
		return url
	case err := <-done:
		t.Fatalf("kollect dev ended before it was ready: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("kollect dev not ready within 2 minutes")
	}
	return ""
}

// checkRows reads the inventory's latest revision from the bus (where kollect history reads it
// through the query service) and compares its rows with want.
func checkRows(t *testing.T, url, busFile string) {
	t.Helper()
	b, err := os.ReadFile(busFile)
	if err != nil {
		t.Fatal(err)
	}
	var creds struct{ User, Password string }
	if err := json.Unmarshal(b, &creds); err != nil {
		t.Fatalf("%s: %v", busFile, err)
	}
	nc, js, err := bus.Connect(url, "incluster-test", nats.UserInfo(creds.User, creds.Password))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := t.Context()
	inv := busv1.NamespacedName{Namespace: "kollect-demo", Name: "demo"}
	last, err := history.Last(ctx, js, inv)
	if err != nil || last == nil {
		t.Fatalf("the latest revision of %s on the bus: %v, %v", inv, last, err)
	}
	env, err := history.Envelope(ctx, js, &last.Event)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range env.Items {
		a, err := json.Marshal(r.Attributes)
		if err != nil {
			t.Fatal(err)
		}
		got[r.Name] = string(a)
		if r.Kind != "Deployment" || r.Namespace != "kollect-demo" {
			t.Errorf("row %s: kind %s namespace %s, want a Deployment of kollect-demo", r.Name, r.Kind, r.Namespace)
		}
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("row %s: attributes %s, want %s", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("revision %d holds %d rows (%v), want %d", env.Revision, len(got), got, len(want))
	}
	t.Logf("revision %d of %s: %v", env.Revision, inv, got)
}

// rowHas says whether a line of a table starts with name and holds every field.
func rowHas(table, name string, fields ...string) bool {
	for _, l := range strings.Split(table, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == name && !slices.ContainsFunc(fields, func(x string) bool { return !slices.Contains(f, x) }) {
			return true
		}
	}
	return false
}
