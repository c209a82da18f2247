package control_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
)

// grantCommands returns the kubectl lines of the first sh block after the
// "### Granting access" heading of docs/multi-tenancy.md.
func grantCommands(t *testing.T) []string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "multi-tenancy.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "### Granting access")
	if !ok {
		t.Fatal("docs/multi-tenancy.md has no Granting access section")
	}
	_, rest, _ = strings.Cut(rest, "```sh\n")
	block, _, _ := strings.Cut(rest, "```")
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		out = append(out, strings.TrimPrefix(line, "kubectl "))
	}
	if len(out) == 0 {
		t.Fatal("the Granting access section has no commands")
	}
	return out
}

// The documented self-service grant, run as written (namespace renamed),
// is exactly what makes a team's Target collect its namespace.
func TestDocumentedGrantLetsATargetCollectItsNamespace(t *testing.T) {
	ns := "docs-grant"
	create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}) // no grant yet
	create(t, profile(ns, "secrets", secrets))
	tg := targetObj(ns, "secrets", "secrets")
	create(t, tg)
	condition(t, tg, "Ready", metav1.ConditionFalse, "AccessDenied", ns+"/kollect")
	admin, err := shared.kube.Env.ControlPlane.AddUser(envtest.User{Name: "docs-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubectl, err := admin.Kubectl()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range grantCommands(t) {
		args := strings.Fields(strings.ReplaceAll(line, "team-a", ns))
		stdout, stderr, err := kubectl.Run(args...)
		if err != nil {
			o, _ := io.ReadAll(stdout)
			e, _ := io.ReadAll(stderr)
			t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, o, e)
		}
	}
	accessOf(t, ns, "secrets", busv1.TargetAccess{ServiceAccount: ns + "/kollect", Namespaces: []string{ns}})
}
