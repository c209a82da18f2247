package itest

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// TestFullResourceExportIsRedacted exports whole Deployments whose env
// holds a password, a token and a secretKeyRef, plus an attribute named
// like a password: each sensitive value is replaced by the redaction
// marker, and no secret value appears anywhere in the Git repository's
// history or the Postgres table.
func TestFullResourceExportIsRedacted(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "redact", nil)
	repo := newRepo(t, "redact")
	db := newDatabase(t, "redact")
	secret(t, ns, "pg", map[string]string{"dsn": db.DSN})
	apply(t, `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: full, namespace: $ns}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes: [{name: adminPassword, path: "$.metadata.annotations['db-password']", type: string}]
  export: {mode: Resource, include: All}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: deployments, namespace: $ns}
spec:
  profileRef: {name: full}
  includedNamespaces: [$ns]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: git, namespace: $ns}
spec:
  type: git
  endpoint: $url
  layout: {mode: perResource}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: table, namespace: $ns}
spec:
  type: postgres
  secretRef: {name: pg}
  provisioning: {mode: ensure}
  postgres: {table: rows}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: apps, namespace: $ns}
spec:
  snapshotSinkRefs: [git]
  databaseSinkRefs: [table]
`, "$ns", ns, "$url", repo.URL)
	secrets := []string{"hunter2-Pa55-value", "tok-9d8e7f6a5b4c", "annotated-Zx81-secret"}
	deployment{ns: ns, name: "app", images: []string{"app:1"}, replicas: 1, env: []corev1.EnvVar{
		{Name: "PASSWORD", Value: secrets[0]},
		{Name: "API_TOKEN", Value: secrets[1]},
		{Name: "DB_URL", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "url"}}},
		{Name: "LOG_LEVEL", Value: "debug"},
	}}.create(t)
	update(t, ns, "app", func(d *appsv1Deployment) { d.Annotations = map[string]string{"db-password": secrets[2]} })

	redacted := map[string]any{"redacted": true, "reason": "sensitive-key"}
	wantEnv := []any{
		map[string]any{"name": "PASSWORD", "value": redacted},
		map[string]any{"name": "API_TOKEN", "value": redacted},
		map[string]any{"name": "DB_URL", "valueFrom": redacted},
		map[string]any{"name": "LOG_LEVEL", "value": "debug"},
	}
	check := func(r busv1.Row) error {
		if d := cmp.Diff(redacted, r.Attributes["adminPassword"]); d != "" {
			return fmt.Errorf("adminPassword (-want +got):\n%s", d)
		}
		if d := cmp.Diff(redacted, dig(r.Attributes, "resource", "metadata", "annotations", "db-password")); d != "" {
			return fmt.Errorf("embedded annotation db-password (-want +got):\n%s", d)
		}
		env := dig(r.Attributes, "resource", "spec", "template", "spec", "containers", 0, "env")
		if d := cmp.Diff(wantEnv, env); d != "" {
			return fmt.Errorf("exported env (-want +got):\n%s", d)
		}
		return nil
	}
	path := "default/" + ns + "/deployment/app.yaml"
	eventually(t, waitFor, "Git file "+path, func() error {
		files, err := repo.files()
		if err != nil {
			return err
		}
		var r busv1.Row
		if err := yaml.Unmarshal([]byte(files[path]), &r); err != nil {
			return err
		}
		return check(r)
	}, ns+"/apps")
	eventually(t, waitFor, "Postgres row", func() error {
		got, err := db.rows(t.Context(), "rows", "default", busv1.NamespacedName{Namespace: ns, Name: "apps"})
		if err != nil {
			return err
		}
		if len(got.Rows) != 1 {
			return fmt.Errorf("%d rows, want 1", len(got.Rows))
		}
		return check(got.Rows[0])
	}, ns+"/apps")

	history, err := repo.git("log", "-p", "--all", "--format=%H %s%n%b")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(history, s) {
			i := strings.Index(history, s)
			t.Errorf("the Git history holds secret value %q: ...%s...", s, history[max(0, i-600):min(len(history), i+100)])
		}
		var n int
		if err := db.queryRow(t.Context(), `SELECT count(*) FROM public.rows WHERE attributes::text LIKE '%' || $1 || '%'`, []any{s}, &n); err != nil || n != 0 {
			t.Errorf("%d Postgres rows hold secret value %q (%v)", n, s, err)
		}
	}
}

// dig walks maps (string keys) and lists (int indexes) of v.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// TestRedactionCannotBeBypassedEndToEnd runs the review's H3 probe through
// the whole system: a Deployment holds canary env values, a URL password,
// flag values and a last-applied annotation repeating them; a Profile
// selects them by index, filter, CEL filter, base64 and size, and embeds the
// object with prune.defaults false; another Profile makes CEL fail on an
// annotation that is not a valid regular expression. Every selection yields
// the marker, the error names its class without quoting the annotation, and
// afterwards no canary is in the Git history, any status, any event or any
// service log line.
func TestRedactionCannotBeBypassedEndToEnd(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "redact-bypass", nil)
	repo := newRepo(t, "redact-bypass")
	apply(t, `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: bypass, namespace: $ns}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes:
  - {name: envList, path: "$.spec.template.spec.containers[*].env"}
  - {name: byFilter, path: "$..env[?(@.name=='DB_PASSWORD')].value"}
  - {name: byIndex, path: "$.spec.template.spec.containers[0].env[0].value", type: string}
  - {name: celFilter, path: "cel:object.spec.template.spec.containers[0].env.filter(e, e.name == 'DB_PASSWORD')[0].value"}
  - {name: celBase64, path: "cel:base64.encode(bytes(object.spec.template.spec.containers[0].env[0].value))"}
  - {name: celSize, path: "cel:size(object.spec.template.spec.containers[0].env[0].value)"}
  - {name: args, path: "$.spec.template.spec.containers[0].args"}
  - {name: annotations, path: "$.metadata.annotations"}
  export: {mode: Resource, include: All, prune: {defaults: false}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: failing, namespace: $ns}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes:
  - {name: check, path: "cel:'x'.matches(object.metadata.annotations['example.com/pattern'])"}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: bypass, namespace: $ns}
spec: {profileRef: {name: bypass}, includedNamespaces: [$ns]}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: failing, namespace: $ns}
spec: {profileRef: {name: failing}, includedNamespaces: [$ns]}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: git, namespace: $ns}
spec: {type: git, endpoint: $url}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: apps, namespace: $ns}
spec: {snapshotSinkRefs: [git]}
`, "$ns", ns, "$url", repo.URL)
	// canary marks the sensitive values; pattern is an ordinary annotation,
	// exported as it is, that errors must not quote.
	const canary, pattern = "CANARY-IT", "PATTERN-ERR("
	deployment{ns: ns, name: "app", images: []string{"app:1"}, replicas: 1, env: []corev1.EnvVar{
		{Name: "DB_PASSWORD", Value: canary + "-ENV"},
		{Name: "DATABASE_URL", Value: "postgres://u:" + canary + "-URL@db/app"},
		{Name: "AWS_SECRET_ACCESS_KEY", Value: canary + "-AWS"},
		{Name: "LOG_LEVEL", Value: "debug"},
	}}.create(t)
	update(t, ns, "app", func(d *appsv1Deployment) {
		d.Annotations = map[string]string{
			"kubectl.kubernetes.io/last-applied-configuration": `{"env":[{"name":"DB_PASSWORD","value":"` + canary + `-LAA"}]}`,
			"example.com/pattern":                              pattern,
		}
		d.Spec.Template.Spec.Containers[0].Args = []string{"--password=" + canary + "-ARG", "--token", canary + "-ARG2", "-v"}
	})

	marker := map[string]any{"redacted": true, "reason": "sensitive-key"}
	want := map[string]any{"byFilter": []any{marker}, "byIndex": marker, "celFilter": marker, "celBase64": marker, "celSize": marker,
		"args": []any{marker, "--token", marker, "-v"}}
	path := "inventory/" + ns + "/apps.yaml"
	eventually(t, waitFor, "Git file "+path, func() error {
		files, err := repo.files()
		if err != nil {
			return err
		}
		var rows []busv1.Row
		if err := yaml.Unmarshal([]byte(files[path]), &rows); err != nil {
			return err
		}
		if len(rows) != 1 {
			return fmt.Errorf("%d rows, want 1", len(rows))
		}
		for k, w := range want {
			if d := cmp.Diff(w, rows[0].Attributes[k]); d != "" {
				return fmt.Errorf("%s (-want +got):\n%s", k, d)
			}
		}
		return nil
	}, ns+"/apps")
	eventually(t, waitFor, "Target failing reports its extraction error", func() error {
		st := statusText(t, "KollectTarget", ns, "failing")
		if !strings.Contains(st, "invalid regular expression") {
			return fmt.Errorf("status %s: want the error class", st)
		}
		return nil
	})

	sweep := map[string]string{"the service logs": readLog(t)}
	if sweep["the Git history"], _ = repo.git("log", "-p", "--all", "--format=%H %s%n%b"); sweep["the Git history"] == "" {
		t.Fatal("no Git history")
	}
	for _, o := range [][2]string{{"KollectTarget", "bypass"}, {"KollectTarget", "failing"}, {"KollectInventory", "apps"}, {"KollectProfile", "bypass"}} {
		sweep["the status of "+o[0]+" "+o[1]] = statusText(t, o[0], ns, o[1])
	}
	var events corev1.EventList
	if err := sys.k8s.List(t.Context(), &events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		sweep["events"] += e.Reason + " " + e.Message + "\n"
	}
	for where, text := range sweep {
		for _, s := range []string{canary, pattern} {
			if s == pattern && where == "the Git history" {
				continue // exported on purpose by the annotations attribute
			}
			if i := strings.Index(text, s); i >= 0 {
				t.Errorf("%s hold %q: ...%s...", where, s, text[max(0, i-300):min(len(text), i+60)])
			}
		}
	}
}

// statusText returns the status of the Kollect object kind ns/name as JSON.
func statusText(t *testing.T, kind, ns, name string) string {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: "kollect.dev", Version: "v1alpha1", Kind: kind})
	if err := sys.k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatalf("get %s %s/%s: %v", kind, ns, name, err)
	}
	b, _ := json.Marshal(u.Object["status"])
	return string(b)
}

// readLog returns every service log line written so far.
func readLog(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(sys.logFile)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
