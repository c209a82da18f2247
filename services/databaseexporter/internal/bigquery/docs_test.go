package bigquery

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

func TestDocsExample(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "sinks", "bigquery.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("bigquery.md has no yaml block")
	}
	docs := strings.Split(string(m[1]), "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("the example has %d objects, want a Secret and a sink", len(docs))
	}
	var secret struct {
		StringData map[string]string `json:"stringData"`
	}
	if err := yaml.Unmarshal([]byte(docs[0]), &secret); err != nil {
		t.Fatalf("decode the example Secret: %v", err)
	}
	var key struct {
		Type      string `json:"type"`
		ProjectID string `json:"project_id"`
	}
	if err := json.Unmarshal([]byte(secret.StringData[CredentialsKey]), &key); err != nil || key.Type != "service_account" {
		t.Fatalf("the example Secret's %s is not a service account key: %v", CredentialsKey, err)
	}
	var obj v1alpha1.KollectDatabaseSink
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &obj); err != nil {
		t.Fatalf("decode the example sink: %v", err)
	}
	raw, err := json.Marshal(obj.Spec)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := DecodeSpec(raw)
	if err != nil {
		t.Fatalf("the example spec is refused: %v", err)
	}
	if spec.SecretRef == nil || spec.BigQuery.Project != key.ProjectID {
		t.Errorf("the example sink does not use the example Secret's project %q: %+v", key.ProjectID, spec.BigQuery)
	}
}
