package initsecrets_test

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/control/initsecrets"
)

const ns = "kollect-system"

var hosts = []string{"kollect-query.kollect-system.svc", "kollect-query.kollect-system.svc.cluster.local"}

func TestInitSecretsAgainstTheAPIServer(t *testing.T) {
	kube := testenv.StartBareKube(t)
	ctx, cl := t.Context(), kube.Client
	if err := cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	secret := func(name string) *corev1.Secret {
		t.Helper()
		var s corev1.Secret
		if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &s); err != nil {
			t.Fatal(err)
		}
		return &s
	}

	t.Run("the NATS users Secret is created, then only completed, never rotated", func(t *testing.T) {
		if err := initsecrets.EnsureNATSUsers(ctx, cl, ns, "kollect-nats-users", []string{"control", "collector"},
			map[string]string{"app.kubernetes.io/part-of": "kollect"}); err != nil {
			t.Fatal(err)
		}
		first := secret("kollect-nats-users")
		if len(first.Data) != 2 || len(first.Data["control"]) < 20 || bytes.Equal(first.Data["control"], first.Data["collector"]) {
			t.Fatalf("passwords %q: want two distinct long ones", first.Data)
		}
		if first.Labels["app.kubernetes.io/part-of"] != "kollect" {
			t.Errorf("labels %v: want the given ones", first.Labels)
		}
		for _, p := range first.Data {
			if strings.ContainsAny(string(p), ":/@?#%") {
				t.Errorf("password %q is not URL-safe", p)
			}
		}
		if err := initsecrets.EnsureNATSUsers(ctx, cl, ns, "kollect-nats-users", []string{"control", "collector", "query"}, nil); err != nil {
			t.Fatal(err)
		}
		second := secret("kollect-nats-users")
		if !bytes.Equal(second.Data["control"], first.Data["control"]) || !bytes.Equal(second.Data["collector"], first.Data["collector"]) {
			t.Error("a second run changed an existing password")
		}
		if len(second.Data["query"]) < 20 {
			t.Errorf("the user added later got no password: %q", second.Data)
		}
		rv := second.ResourceVersion
		if err := initsecrets.EnsureNATSUsers(ctx, cl, ns, "kollect-nats-users", []string{"control", "query"}, nil); err != nil {
			t.Fatal(err)
		}
		if got := secret("kollect-nats-users"); got.ResourceVersion != rv || len(got.Data) != 3 {
			t.Errorf("a run with nothing missing wrote the Secret (resourceVersion %s, was %s) or dropped a user", got.ResourceVersion, rv)
		}
	})

	t.Run("Secrets an older chart rendered are kept, with Helm's keep policy", func(t *testing.T) {
		old := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "old-nats-users",
			Annotations: map[string]string{"meta.helm.sh/release-name": "kollect"}},
			Data: map[string][]byte{"control": []byte("old-password")}}
		if err := cl.Create(ctx, old); err != nil {
			t.Fatal(err)
		}
		if err := initsecrets.EnsureNATSUsers(ctx, cl, ns, "old-nats-users", []string{"control"}, nil); err != nil {
			t.Fatal(err)
		}
		got := secret("old-nats-users")
		if got.Annotations["helm.sh/resource-policy"] != "keep" || string(got.Data["control"]) != "old-password" {
			t.Errorf("annotations %v, data %q: want the keep policy and the old password", got.Annotations, got.Data)
		}
	})

	t.Run("the serving certificate is made once and replaced only when it does not fit", func(t *testing.T) {
		if err := initsecrets.EnsureServingCert(ctx, cl, ns, "kollect-query-cert", hosts, nil); err != nil {
			t.Fatal(err)
		}
		first := secret("kollect-query-cert")
		if first.Type != corev1.SecretTypeTLS {
			t.Errorf("type %s, want kubernetes.io/tls", first.Type)
		}
		verify(t, first.Data, hosts)
		if err := initsecrets.EnsureServingCert(ctx, cl, ns, "kollect-query-cert", hosts, nil); err != nil {
			t.Fatal(err)
		}
		if got := secret("kollect-query-cert"); got.ResourceVersion != first.ResourceVersion {
			t.Error("a second run replaced a valid certificate")
		}
		other := []string{"kollect-query.other.svc"}
		if err := initsecrets.EnsureServingCert(ctx, cl, ns, "kollect-query-cert", other, nil); err != nil {
			t.Fatal(err)
		}
		verify(t, secret("kollect-query-cert").Data, other)
		broken := secret("kollect-query-cert")
		broken.Data[corev1.TLSCertKey] = []byte("not a certificate")
		if err := cl.Update(ctx, broken); err != nil {
			t.Fatal(err)
		}
		if err := initsecrets.EnsureServingCert(ctx, cl, ns, "kollect-query-cert", hosts, nil); err != nil {
			t.Fatal(err)
		}
		verify(t, secret("kollect-query-cert").Data, hosts)
	})

	t.Run("the subcommand sets the APIService's caBundle from the Secret, once", func(t *testing.T) {
		api := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
			"metadata": map[string]any{"name": "v1alpha1.query.kollect.dev"},
			"spec": map[string]any{"group": "query.kollect.dev", "version": "v1alpha1",
				"service":              map[string]any{"namespace": ns, "name": "kollect-query", "port": int64(443)},
				"groupPriorityMinimum": int64(1000), "versionPriority": int64(15)},
		}}
		if err := cl.Create(ctx, api); err != nil {
			t.Fatal(err)
		}
		t.Setenv("KUBECONFIG", kubeconfig(t, kube))
		var stderr bytes.Buffer
		args := []string{"--namespace", ns, "--serving-secret", "kollect-query-cert", "--apiservice", "v1alpha1.query.kollect.dev"}
		if code := initsecrets.Main(args, &stderr); code != 0 {
			t.Fatalf("init-secrets = %d: %s", code, stderr.String())
		}
		if err := cl.Get(ctx, client.ObjectKey{Name: "v1alpha1.query.kollect.dev"}, api); err != nil {
			t.Fatal(err)
		}
		got, _, _ := unstructured.NestedString(api.Object, "spec", "caBundle")
		if want := base64.StdEncoding.EncodeToString(secret("kollect-query-cert").Data["ca.crt"]); got != want {
			t.Errorf("caBundle %.40s..., want ca.crt of the Secret %.40s...", got, want)
		}
		rv := api.GetResourceVersion()
		if code := initsecrets.Main(args, &stderr); code != 0 {
			t.Fatalf("init-secrets again = %d: %s", code, stderr.String())
		}
		if err := cl.Get(ctx, client.ObjectKey{Name: "v1alpha1.query.kollect.dev"}, api); err != nil {
			t.Fatal(err)
		}
		if api.GetResourceVersion() != rv {
			t.Error("a second run patched an APIService that already had the CA")
		}
	})

	t.Run("bad flags exit 2", func(t *testing.T) {
		for _, args := range [][]string{{"--nats-users-secret", "x"}, {"--namespace", ""}, {"--labels", "novalue"}, {"extra"}} {
			var stderr bytes.Buffer
			if code := initsecrets.Main(append([]string{"--namespace", ns}, args...), &stderr); code != 2 {
				t.Errorf("init-secrets %v = %d, want 2 (%s)", args, code, stderr.String())
			}
		}
	})
}

// verify checks that data holds a certificate for hosts signed by its ca.crt.
func verify(t *testing.T, data map[string][]byte, hosts []string) {
	t.Helper()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(data["ca.crt"]) {
		t.Fatal("ca.crt holds no certificate")
	}
	b, _ := pem.Decode(data["tls.crt"])
	if b == nil {
		t.Fatal("tls.crt holds no PEM block")
	}
	leaf, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: h}); err != nil {
			t.Errorf("certificate for %s: %v", h, err)
		}
	}
	if len(data["tls.key"]) == 0 {
		t.Error("no tls.key")
	}
}

// kubeconfig writes the kubeconfig of kube's admin user that envtest made.
func kubeconfig(t *testing.T, k *testenv.Kube) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, k.Env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
