package control_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/control"
)

// admissionConfig writes the files that have kube-apiserver present the
// client certificate cert/key to every webhook (docs/install.md,
// "Authenticate apiservers") and returns the --admission-control-config-file.
func admissionConfig(t *testing.T, dir, cert, key string) string {
	t.Helper()
	kubeconfig := filepath.Join(dir, "webhook-kubeconfig.yaml")
	write(t, kubeconfig, fmt.Sprintf(`apiVersion: v1
kind: Config
users:
- name: "*"
  user:
    client-certificate: %s
    client-key: %s
`, cert, key))
	cfg := filepath.Join(dir, "admission.yaml")
	write(t, cfg, fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: %[1]s
- name: MutatingAdmissionWebhook
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: WebhookAdmissionConfiguration
    kubeConfigFile: %[1]s
`, kubeconfig))
	return cfg
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestOnlyTheAPIServerTalksToTheWebhook runs control with a client CA on
// its own API server, which presents a certificate that CA signed: the API
// server's reviews are answered (naming the namespace, as the requester is
// vouched for), a caller without the certificate is refused at the TLS
// handshake, before any access review.
func TestOnlyTheAPIServerTalksToTheWebhook(t *testing.T) {
	dir := t.TempDir()
	files := testenv.WriteTLSFiles(t, dir, "127.0.0.1")
	kube := testenv.StartKubeWithFlags(t, map[string]string{
		"admission-control-config-file": admissionConfig(t, dir, files.ClientCert, files.ClientKey)})
	n := testenv.StartNATS(t)
	if err := bus.Provision(t.Context(), n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for _, ns := range []string{releaseNamespace, "team-a", "team-b"} {
		o := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{labelWebhook: "true"}}}
		if err := kube.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	cfg := testConfig(kube.Config, n.URL, false)
	wh, err := installWebhook(ctx, kube)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Webhook = wh
	cfg.Webhook.ClientCAFile = files.CA
	done := make(chan error, 1)
	go func() { done <- control.Run(ctx, cfg) }()
	defer func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("control: %v", err)
		}
	}()
	if err := waitListening(ctx, wh.Host, wh.Port, done); err != nil {
		t.Fatal(err)
	}

	t.Run("a caller without the API server's certificate is refused at the handshake", func(t *testing.T) {
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
		url := fmt.Sprintf("https://127.0.0.1:%d/validate-kollect-dev", wh.Port)
		resp, err := hc.Post(url, "application/json", bytes.NewReader([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`)))
		if err == nil {
			resp.Body.Close()
			t.Fatalf("a caller without a client certificate was answered %s", resp.Status)
		}
		if !strings.Contains(err.Error(), "certificate") {
			t.Errorf("error %q, want a refused TLS handshake", err)
		}
	})

	t.Run("the API server's reviews are answered", func(t *testing.T) {
		create := func(o client.Object) {
			if err := kube.Client.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		create(&v1alpha1.KollectProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "cm"},
			Spec: v1alpha1.KollectProfileSpec{TargetGVK: v1alpha1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}}})
		u, err := kube.Env.ControlPlane.AddUser(envtest.User{Name: "alice"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		create(&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "alice"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects: []rbacv1.Subject{{Kind: "User", Name: "alice"}}})
		alice, err := client.New(u.Config(), client.Options{Scheme: kube.Client.Scheme()})
		if err != nil {
			t.Fatal(err)
		}
		tg := &v1alpha1.KollectTarget{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "reach"}}
		tg.Spec.ProfileRef.Name = "cm"
		tg.Spec.IncludedNamespaces = []string{"team-a", "team-b"}
		err = alice.Create(ctx, tg)
		if err == nil || !strings.Contains(err.Error(), "denied the request") || !strings.Contains(err.Error(), "in namespace team-b") {
			t.Errorf("a Target reaching a namespace alice may not list: %v, want a denial naming team-b", err)
		}
	})
}
