package chart_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/pkg/testenv"
)

// TestTheCRDChartAdoptsTheCRDsTheMainChartInstalled installs the kollect
// chart first on an API server without CRDs (its crds/ folder creates
// them, without Helm ownership), then the kollect-crds chart as
// docs/install.md says: Helm refuses without --take-ownership and adopts
// them with it, after which `helm upgrade` of the CRD chart works.
func TestTheCRDChartAdoptsTheCRDsTheMainChartInstalled(t *testing.T) {
	kube := testenv.StartBareKube(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, kube.Env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	crdChart := repoPath(t, "charts/kollect-crds")
	at := []string{"--kubeconfig", kubeconfig, "-n", namespace}

	helm(t, append([]string{"install", releaseName, ".", "--create-namespace", "--no-hooks"}, at...)...)
	out, err := helmErr(t, append([]string{"install", "kollect-crds", crdChart}, at...)...)
	if err == nil || !strings.Contains(out, "invalid ownership metadata") {
		t.Fatalf("helm install kollect-crds over the main chart's CRDs: err %v, output\n%s\nwant Helm's invalid ownership metadata refusal", err, out)
	}
	helm(t, append([]string{"upgrade", "--install", "kollect-crds", crdChart, "--take-ownership"}, at...)...)

	c, err := apiextensions.NewForConfig(kube.Env.Config)
	if err != nil {
		t.Fatal(err)
	}
	crds, err := c.ApiextensionsV1().CustomResourceDefinitions().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(crds.Items) < 11 {
		t.Fatalf("%d CRDs, want every kollect.dev kind", len(crds.Items))
	}
	for _, crd := range crds.Items {
		if got := crd.Annotations["meta.helm.sh/release-name"]; got != "kollect-crds" {
			t.Errorf("CRD %s: meta.helm.sh/release-name %q, want kollect-crds", crd.Name, got)
		}
	}
	helm(t, append([]string{"upgrade", "kollect-crds", crdChart}, at...)...)
	helm(t, append([]string{"upgrade", releaseName, ".", "--skip-crds", "--no-hooks"}, at...)...)
}
