package itest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	corev1 "k8s.io/api/core/v1"

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
  export: {mode: Resource, include: SpecOnly}
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
