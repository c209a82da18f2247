package chart_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/control/initsecrets"
)

// TestInitSecretsJobsRunWithTheirRBAC runs what the default values' hook Jobs run, with their
// args, as their ServiceAccount (impersonated) against a real API server holding the chart's
// RBAC: the pre Job makes every NATS password the pods read and the query certificate, the post
// Job sets the APIService's caBundle, and a second run (helm upgrade) changes nothing.
func TestInitSecretsJobsRunWithTheirRBAC(t *testing.T) {
	k := startKube(t)
	a := newApplier(t, k)
	objs := decode(t, render(t, ""))
	applyRBAC(t, a, objs)
	t.Setenv("KUBECONFIG", impersonating(t, k, "kollect-init-secrets"))
	run := func(job string) {
		t.Helper()
		args := containerArgs(t, find(t, objs, "Job", job))
		var stderr bytes.Buffer
		// RBAC caches converge after the bindings are created: retry until the run succeeds.
		if err := testenv.Poll(t.Context(), 30*time.Second, func() error {
			stderr.Reset()
			if code := initsecrets.Main(args[1:], &stderr); code != 0 {
				return fmt.Errorf("%s exited %d: %s", job, code, stderr.String())
			}
			return nil
		}, testenv.Every(200*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	secret := func(name string) *corev1.Secret {
		t.Helper()
		var s corev1.Secret
		if err := k.Client.Get(t.Context(), client.ObjectKey{Namespace: namespace, Name: name}, &s); err != nil {
			t.Fatal(err)
		}
		return &s
	}

	run("kollect-init-secrets-pre")
	users := secret("kollect-nats-users")
	for _, u := range []string{"control", "collector", "aggregator", "snapshot-exporter", "database-exporter", "event-exporter", "query"} {
		if len(users.Data[u]) < 20 {
			t.Errorf("NATS user %s has password %q", u, users.Data[u])
		}
	}
	cert := secret("kollect-query-cert")
	if cert.Type != corev1.SecretTypeTLS || len(cert.Data["ca.crt"]) == 0 {
		t.Fatalf("kollect-query-cert: type %s, keys %d", cert.Type, len(cert.Data))
	}

	api := find(t, objs, "APIService", "v1alpha1.query.kollect.dev")
	if err := a.apply(t.Context(), api, false); err != nil {
		t.Fatal(err)
	}
	run("kollect-init-secrets-post")
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(api.GroupVersionKind())
	if err := k.Client.Get(t.Context(), client.ObjectKey{Name: api.GetName()}, got); err != nil {
		t.Fatal(err)
	}
	if ca, _, _ := unstructured.NestedString(got.Object, "spec", "caBundle"); ca != base64.StdEncoding.EncodeToString(cert.Data["ca.crt"]) {
		t.Errorf("the APIService's caBundle is %.30q, want ca.crt of kollect-query-cert", ca)
	}

	run("kollect-init-secrets-pre") // helm upgrade
	run("kollect-init-secrets-post")
	if s := secret("kollect-nats-users"); s.ResourceVersion != users.ResourceVersion {
		t.Error("an upgrade rewrote the NATS users Secret")
	}
	if s := secret("kollect-query-cert"); s.ResourceVersion != cert.ResourceVersion {
		t.Error("an upgrade replaced the query certificate")
	}

	// The ServiceAccount may do nothing else: another Secret of the namespace stays out of reach.
	var stderr bytes.Buffer
	code := initsecrets.Main([]string{"--namespace", namespace, "--serving-secret", "kollect-control-webhook-cert",
		"--serving-hosts", "x.example"}, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "forbidden") {
		t.Errorf("init-secrets on another Secret = %d (%s), want forbidden", code, stderr.String())
	}
}
