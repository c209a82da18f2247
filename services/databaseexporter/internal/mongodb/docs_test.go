package mongodb

import (
	"encoding/json"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
)

func TestDocsExample(t *testing.T) {
	srv := testenv.StartMongo(t)
	objs := sinktest.DocObjects[v1alpha1.KollectDatabaseSinkSpec](t, "docs/sinks/mongodb.md", "KollectDatabaseSink")
	secret, sk := sinktest.OneDoc(t, objs, "Secret"), sinktest.OneDoc(t, objs, "KollectDatabaseSink")
	if !strings.HasPrefix(secret.StringData["uri"], "mongodb://") {
		t.Fatalf("the example Secret's uri is %q", secret.StringData["uri"])
	}
	// Only the server address changes: the test peer.
	creds := backend.MapCredentials{{Namespace: secret.Metadata.Namespace, Name: secret.Metadata.Name}: {"uri": []byte(srv.URI)}}
	spec, err := json.Marshal(sk.Spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := busv1.SinkConfig{Family: busv1.FamilyDatabase, Type: "mongodb", Namespace: sk.Metadata.Namespace,
		Name: sk.Metadata.Name, Cluster: "prod-eu-1", Spec: spec}
	s, err := testBackend().New(t.Context(), cfg, creds)
	if err != nil {
		t.Fatalf("new sink from the documented example: %v", err)
	}
	sinktest.Close(t, s)
	want := envelope(t, "prod-eu-1", inv, 1, podRow("web-0", map[string]any{"image": "nginx:1.27",
		"labels": map[string]any{"app.kubernetes.io/name": "web"}}))
	if err := s.Write(t.Context(), want); err != nil {
		t.Fatalf("write: %v", err)
	}
	r := newReader(t, srv.URI, "inventory", "kollect_rows")
	expect(t, r, "prod-eu-1", want)
}
