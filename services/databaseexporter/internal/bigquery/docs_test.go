package bigquery

import (
	"encoding/json"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

func TestDocsExample(t *testing.T) {
	objs := sinktest.DocObjects[v1alpha1.KollectDatabaseSinkSpec](t, "docs/sinks/bigquery.md", "KollectDatabaseSink")
	if len(objs) != 2 {
		t.Fatalf("the example has %d objects, want a Secret and a sink", len(objs))
	}
	secret, obj := sinktest.OneDoc(t, objs, "Secret"), sinktest.OneDoc(t, objs, "KollectDatabaseSink")
	var key struct {
		Type      string `json:"type"`
		ProjectID string `json:"project_id"`
	}
	if err := json.Unmarshal([]byte(secret.StringData[CredentialsKey]), &key); err != nil || key.Type != "service_account" {
		t.Fatalf("the example Secret's %s is not a service account key: %v", CredentialsKey, err)
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
