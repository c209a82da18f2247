package chart_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"kollect.dev/kollect/pkg/testenv"
)

// adminKubeconfig writes a kubeconfig of k's admin user.
func adminKubeconfig(t *testing.T, k *testenv.Kube) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["envtest"] = &clientcmdapi.Cluster{Server: k.Config.Host, CertificateAuthorityData: k.Config.CAData}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: k.Config.CertData, ClientKeyData: k.Config.KeyData,
		Token: k.Config.BearerToken}
	cfg.Contexts["admin"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	cfg.CurrentContext = "admin"
	path := filepath.Join(t.TempDir(), "admin.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

var (
	// notesRef matches the objects NOTES.txt tells users to look at: kind/name in kubectl commands.
	notesRef = regexp.MustCompile(`\b(deployment|statefulset|kollectinventory)/([a-z0-9<>-]+)`)
	// notesFile matches the repository files NOTES.txt names.
	notesFile = regexp.MustCompile(`\b((?:docs|charts)/[A-Za-z0-9_./-]+[a-z])`)
)

// checkNotes runs `helm install --dry-run` of every values set against the API server and
// checks its NOTES: every Deployment is listed, every object a kubectl command names is one the
// release renders, every repository file it names exists (docs/examples/in-cluster included),
// and the next steps are the self-contained in-cluster example.
func checkNotes(t *testing.T, kubeconfig string) {
	for _, name := range setNames() {
		t.Run("NOTES of the "+name+" values name only what the release installs", func(t *testing.T) {
			args := []string{"install", releaseName, ".", "--namespace", namespace, "--dry-run=client", "--kubeconfig", kubeconfig}
			if v := valuesSets[name]; v != "" {
				args = append(args, "--values", v)
			}
			out := string(helm(t, args...))
			i := strings.Index(out, "\nNOTES:\n")
			if i < 0 {
				t.Fatalf("helm install printed no NOTES:\n%.500s", out)
			}
			notes := out[i:]
			objs := decode(t, []byte(strings.SplitN(out[:i], "\nMANIFEST:\n", 2)[1]))
			rendered := map[string]bool{}
			for _, o := range objs {
				rendered[strings.ToLower(o.GetKind())+"/"+o.GetName()] = true
				if o.GetKind() == "Deployment" && !strings.Contains(notes, "  "+o.GetName()+" (") {
					t.Errorf("NOTES do not list Deployment %s", o.GetName())
				}
			}
			for _, m := range notesRef.FindAllStringSubmatch(notes, -1) {
				if !strings.Contains(m[2], "<") && !rendered[m[1]+"/"+m[2]] {
					t.Errorf("NOTES name %s, which the release does not render", m[0])
				}
			}
			for _, m := range notesFile.FindAllStringSubmatch(notes, -1) {
				if _, err := os.Stat(repoPath(t, m[1])); err != nil {
					t.Errorf("NOTES name %s: %v", m[1], err)
				}
			}
			if slices.Contains([]string{"nats-tls", "default"}, name) && !strings.Contains(notes, "Bus: NATS JetStream") {
				t.Errorf("NOTES do not describe the bus:\n%s", notes)
			}
			// The next steps apply only objects that become Ready on a bare cluster, and name the
			// trial profile and, with the query service, how history is read and who may read it.
			for _, want := range []string{"kubectl apply -f docs/examples/in-cluster/", "kubectl get kollectinventories -A",
				"charts/kollect/values-small.yaml"} {
				if !strings.Contains(notes, want) {
					t.Errorf("NOTES lack %q", want)
				}
			}
			if strings.Contains(notes, "docs/examples/00-") || strings.Contains(notes, "docs/examples/40-") {
				t.Error("NOTES apply the numbered examples, which need sinks and Secrets a bare cluster has not")
			}
			if rendered["clusterrole/kollect-query-history-reader"] {
				for _, want := range []string{"kollect history kollect-demo/demo", "--clusterrole=kollect-query-history-reader",
					"kubectl get apiservice v1alpha1.query.kollect.dev"} {
					if !strings.Contains(notes, want) {
						t.Errorf("NOTES with the query service lack %q", want)
					}
				}
			}
		})
	}
}
