package cli_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/cli/internal/collect"
)

const redactionConfig = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: env, namespace: team-a}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes:
  - {name: env, path: "$.spec.template.spec.containers[0].env"}
  - {name: apiToken, path: "$.metadata.name"}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: env, namespace: team-a}
spec: {profileRef: {name: env}, includedNamespaces: [team-a]}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata:
  name: helm
  namespace: team-a
  annotations: {kollect.dev/allow-full-resource-export: "true"}
spec:
  targetGVK: {version: v1, kind: Secret}
  attributes:
  - {name: release, path: "helm:release.releaseName", type: string}
  - {name: chart, path: "helm:release.chartName", type: string}
  - {name: chartVersion, path: "helm:release.chartVersion", type: string}
  - {name: revision, path: "helm:release.revision", type: int}
  - {name: status, path: "helm:release.status", type: string}
  export: {mode: Resource, include: SpecOnly}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: helm, namespace: team-a}
spec:
  profileRef: {name: helm}
  includedNamespaces: [team-a]
  resourceRules: [{matchPolicy: "object.type == 'helm.sh/release.v1'"}]
`

func helmRelease(t testing.TB) []byte {
	t.Helper()
	rel, _ := json.Marshal(map[string]any{"name": "web", "namespace": "team-a", "version": 3,
		"info":   map[string]any{"status": "deployed", "last_deployed": "2026-01-02T03:04:05Z"},
		"chart":  map[string]any{"metadata": map[string]any{"name": "nginx", "version": "15.1.0", "appVersion": "1.27.0"}},
		"config": map[string]any{"password": "hunter2"}})
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write(rel)
	_ = w.Close()
	return []byte(base64.StdEncoding.EncodeToString(gz.Bytes()))
}

// Redaction and Helm decoding through the real API server: an env var named
// like a password, an attribute named like a secret, and a Helm release
// Secret whose data never leaves without both opt-ins.
func TestCollectRedactsAndDecodesHelmReleases(t *testing.T) {
	k := testenv.StartKube(t)
	ctx := context.Background()
	kcfg := kubeconfig(t, k)
	namespace(ctx, t, k.Client, "team-a", nil)
	deployment(ctx, t, k.Client, "team-a", "web", nil, "nginx:1.27")
	for name, typ := range map[string]corev1.SecretType{"sh.helm.release.v1.web.v3": "helm.sh/release.v1", "db-creds": corev1.SecretTypeOpaque} {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name}, Type: typ,
			Data: map[string][]byte{"release": helmRelease(t)}}
		if err := k.Client.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := run(t, "collect", "--config", writeConfig(t, map[string]string{"k.yaml": redactionConfig}), "--kubeconfig", kcfg)
	if code != collect.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "hunter2") || strings.Contains(stdout, string(helmRelease(t)[:20])) {
		t.Fatalf("a secret value left the collector:\n%s", stdout)
	}
	var recs []collect.Record
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r collect.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	byTarget := map[string]map[string]any{}
	for _, r := range recs {
		for _, it := range r.Envelope.Items {
			byTarget[it.TargetName+"/"+it.Name] = it.Attributes
		}
	}
	// include: SpecOnly embeds no metadata beyond the identity, which
	// dedupeIdentity drops: the embedded Secret has no metadata at all.
	sensitive := map[string]any{"redacted": true, "reason": "sensitive-key"}
	want := map[string]map[string]any{
		"env/web": {"env": []any{map[string]any{"name": "DB_PASSWORD", "value": sensitive}}, "apiToken": sensitive},
		"helm/sh.helm.release.v1.web.v3": {"release": "web", "chart": "nginx", "chartVersion": "15.1.0", "revision": float64(3),
			"status": "deployed", "resource": map[string]any{"apiVersion": "v1", "kind": "Secret",
				"type": "helm.sh/release.v1", "data": map[string]any{"redacted": true, "reason": "secret-data"}}},
	}
	if diff := cmp.Diff(want, byTarget); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
