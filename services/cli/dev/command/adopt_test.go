package command

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/pkg/testenv"
)

// TestTheCRDChartAdoptsTheCRDsKollectDevInstalled installs the CRDs as
// `kollect dev --install-crds` does (server-side apply, field manager
// kollect-dev), then the kollect-crds chart with the real Helm CLI, as
// docs/install.md says: without --take-ownership Helm refuses CRDs it did
// not create; with it, the chart owns them and later upgrades work.
func TestTheCRDChartAdoptsTheCRDsKollectDevInstalled(t *testing.T) {
	kube := testenv.StartBareKube(t)
	ctx := context.Background()
	if err := installCRDs(ctx, kube.Env.Config); err != nil {
		t.Fatalf("installCRDs: %v", err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, kube.Env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	chart := filepath.Join(root, "charts", "kollect-crds")
	helm := func(args ...string) (string, error) {
		bin, err := testenv.Tool("bin/helm")
		if err != nil {
			t.Fatal(err)
		}
		home := t.TempDir()
		cmd := exec.Command(bin, append(args, "--kubeconfig", kubeconfig, "-n", "kollect-system")...)
		cmd.Env = append(os.Environ(), "HELM_CONFIG_HOME="+filepath.Join(home, "config"),
			"HELM_CACHE_HOME="+filepath.Join(home, "cache"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := helm("install", "kollect-crds", chart, "--create-namespace")
	if err == nil || !strings.Contains(out, "invalid ownership metadata") {
		t.Fatalf("helm install over CRDs it did not create: err %v, output\n%s\nwant Helm's invalid ownership metadata refusal (else the docs' --take-ownership step is moot)", err, out)
	}
	if out, err := helm("upgrade", "--install", "kollect-crds", chart, "--take-ownership", "--create-namespace"); err != nil {
		t.Fatalf("helm upgrade --install --take-ownership: %v\n%s", err, out)
	}
	c, err := apiextensions.NewForConfig(kube.Env.Config)
	if err != nil {
		t.Fatal(err)
	}
	crds, err := c.ApiextensionsV1().CustomResourceDefinitions().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(crds.Items) < 11 {
		t.Fatalf("%d CRDs after the chart's install, want every kollect.dev kind", len(crds.Items))
	}
	for _, crd := range crds.Items {
		if got := crd.Annotations["meta.helm.sh/release-name"]; got != "kollect-crds" {
			t.Errorf("CRD %s: meta.helm.sh/release-name %q, want kollect-crds (the chart owns it now)", crd.Name, got)
		}
	}
	if out, err := helm("upgrade", "kollect-crds", chart); err != nil {
		t.Fatalf("a later helm upgrade of the adopted CRDs: %v\n%s", err, out)
	}
}
