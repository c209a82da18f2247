package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"kollect.dev/kollect/pkg/testenv"
)

func TestValidateAcceptsTheDocumentedExamples(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "validate", filepath.Join(root, "docs", "examples"))
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "valid") {
		t.Errorf("stdout %q does not report the objects valid", stdout)
	}
}

func TestValidateNamesFileObjectAndField(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"a schema violation names the field", `
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: s, namespace: a}
spec: {type: git, endpoint: "https://git.example.com/r.git", pathTemplate: "../{name}"}
`, []string{"bad.yaml", "KollectSnapshotSink a/s", "spec.pathTemplate"}},
		{"an unknown field is reported", `
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: i, namespace: a}
spec: {exportEvery: 5m}
`, []string{"bad.yaml", "spec.exportEvery", "unknown field"}},
		{"a CEL expression that does not compile names the attribute", `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: p, namespace: a}
spec:
  targetGVK: {version: v1, kind: ConfigMap}
  attributes: [{name: nm, path: "cel:object.data +"}]
`, []string{"bad.yaml", "KollectProfile a/p", "spec.attributes[0].path"}},
		{"a matchPolicy that does not compile names the rule", `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: p, namespace: a}
spec:
  targetGVK: {version: v1, kind: ConfigMap}
  attributes: [{name: nm, path: "$.metadata.name"}]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: t, namespace: a}
spec:
  profileRef: {name: p}
  resourceRules: [{matchPolicy: "object.x ==="}]
`, []string{"bad.yaml#1", "KollectTarget a/t", "spec.resourceRules[0].matchPolicy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeConfig(t, map[string]string{"bad.yaml": tt.doc})
			code, stdout, _ := run(t, "validate", dir)
			if code != 2 {
				t.Errorf("exit %d, want 2; stdout: %s", code, stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output does not name %q:\n%s", w, stdout)
				}
			}
		})
	}
}

// The CLI takes the collector's compilation flags: a CEL cost limit the
// collector would enforce refuses the Profile here too.
func TestValidateTakesTheCollectorsCompilationFlags(t *testing.T) {
	dir := writeConfig(t, map[string]string{"p.yaml": `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: p, namespace: a}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes: [{name: images, path: "cel:object.spec.template.spec.containers.map(c, c.image)"}]
`})
	if code, stdout, stderr := run(t, "validate", dir); code != 0 {
		t.Fatalf("default limit: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, _ := run(t, "validate", "--cel-cost-limit=10", "--redact-keys=internalId", dir)
	if code != 2 || !strings.Contains(stdout, "spec.attributes[0].path") || !strings.Contains(stdout, "exceeds the limit 10") {
		t.Errorf("--cel-cost-limit=10: exit %d, stdout %s; want the attribute refused", code, stdout)
	}
}
