package chart_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/testenv/golden"
)

// kustomizeBase is where `make kustomize` writes the chart's default rendering as plain
// manifests for people who do not use Helm.
const kustomizeBase = "deploy/kustomize/base"

const kustomization = `# Generated from charts/kollect by ` + "`make kustomize`" + ` (helm template with the chart's
# default values, release "kollect", namespace kollect-system): do not edit; a test fails when
# it is stale. The chart's Helm hooks are plain Jobs here: kollect-init-secrets-pre creates the
# NATS users' Secret (kollect-nats-users) and the query certificate when they do not exist,
# kollect-init-secrets-post sets the query APIService's caBundle; the pods that need them start
# once they exist (docs/install.md).
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - namespace.yaml
  - crds.yaml
  - kollect.yaml
`

const namespaceYAML = `apiVersion: v1
kind: Namespace
metadata:
  name: kollect-system
  labels:
    app.kubernetes.io/part-of: kollect
    pod-security.kubernetes.io/enforce: restricted
`

var (
	helmChartLabel = regexp.MustCompile(`(?m)^\s*helm\.sh/chart: .*\n`)
	managedByHelm  = regexp.MustCompile(`(?m)^(\s*app\.kubernetes\.io/managed-by:) Helm$`)
)

// kustomizeFiles renders the base: CRDs from crds/, everything else from the templates.
func kustomizeFiles(t *testing.T) map[string][]byte {
	t.Helper()
	// The CRDs come from api/crds, the source the chart's crds/ copies, so that one -update
	// run refreshes both whatever the order of the tests.
	paths, err := filepath.Glob(repoPath(t, "api/crds/*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no CRDs in api/crds: %v", err)
	}
	var crds []byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		crds = append(crds, b...)
	}
	objs := string(render(t, ""))
	objs = helmChartLabel.ReplaceAllString(objs, "")
	objs = managedByHelm.ReplaceAllString(objs, "$1 kustomize")
	return map[string][]byte{
		"kustomization.yaml": []byte(kustomization),
		"namespace.yaml":     []byte(namespaceYAML),
		"crds.yaml":          crds,
		"kollect.yaml":       []byte(objs),
	}
}

func TestKustomizeBase(t *testing.T) {
	files := kustomizeFiles(t)
	for name, b := range files {
		t.Run(name+" is up to date (make kustomize)", func(t *testing.T) {
			golden.Check(t, repoPath(t, filepath.Join(kustomizeBase, name)), b)
		})
	}
	t.Run("kubectl kustomize builds the base with every object of the chart", func(t *testing.T) {
		kubectl, err := testenv.Tool("envtest/kubectl")
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(kubectl, "kustomize", repoPath(t, kustomizeBase)).Output()
		if err != nil {
			t.Fatalf("kubectl kustomize: %v", err)
		}
		got := len(decode(t, out))
		want := 1 + len(decode(t, files["crds.yaml"])) + len(decode(t, files["kollect.yaml"]))
		if got != want {
			t.Errorf("kustomize built %d objects, want %d", got, want)
		}
		if strings.Contains(string(out), "helm.sh/chart") {
			t.Error("the base still carries helm.sh/chart labels")
		}
	})
}
