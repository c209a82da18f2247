package nats_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"sigs.k8s.io/yaml"
)

// docObjects returns the objects of the ```yaml blocks of a docs page,
// keyed by kind.
func docObjects(t *testing.T, path string) map[string][]byte {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, block := range bytes.Split(page, []byte("```yaml\n"))[1:] {
		block, _, _ = bytes.Cut(block, []byte("```"))
		for _, doc := range bytes.Split(block, []byte("\n---\n")) {
			var meta struct{ Kind string }
			if err := yaml.Unmarshal(doc, &meta); err != nil {
				t.Fatalf("decode a YAML document of %s: %v", path, err)
			}
			out[meta.Kind] = doc
		}
	}
	return out
}

func TestDocExample(t *testing.T) {
	objs := docObjects(t, "../../../../docs/sinks/nats.md")
	var es v1alpha1.KollectEventSink
	var secret struct {
		StringData map[string]string `json:"stringData"`
	}
	if err := yaml.Unmarshal(objs["KollectEventSink"], &es); err != nil {
		t.Fatalf("decode the example sink: %v", err)
	}
	if err := yaml.Unmarshal(objs["Secret"], &secret); err != nil {
		t.Fatalf("decode the example Secret: %v", err)
	}
	token := secret.StringData["token"]
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	p := startNATS(t, func(o *server.Options) {
		o.Authorization = token
		o.TLS, o.TLSTimeout = true, 5
		o.TLSConfig = &tls.Config{Certificates: srv.TLS.Certificates, MinVersion: tls.VersionTLS12}
	}, nats.Token(token), nats.Secure(&tls.Config{InsecureSkipVerify: true})) // the test's admin client
	es.Spec.Endpoint = strings.Replace(p.url, "nats://", "tls://", 1) // the only rewrite of the spec
	creds := exporter.MapCredentials{
		{Namespace: es.Namespace, Name: es.Spec.SecretRef.Name}:       {"token": []byte(token)},
		{Namespace: es.Namespace, Name: es.Spec.TLS.CASecretRef.Name}: {es.Spec.TLS.CASecretRef.Key: ca},
	}
	specJSON, err := json.Marshal(es.Spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := busv1.SinkConfig{Family: busv1.FamilyEvent, Type: string(es.Spec.Type), Namespace: es.Namespace, Name: es.Name,
		Cluster: es.Spec.Cluster, Spec: specJSON}
	s := newSink(t, private, cfg, creds)
	sn := snap(t, 1, row("a", 1.0), row("b", 2.0)) // JSON numbers decode as float64
	sn.Envelope = sn.Envelope.Stamp(cfg.Cluster, sn.Envelope.ExportedAt)
	write(t, s, sn)
	got, found, err := reader{js: p.js, stream: es.Spec.NATS.Stream}.Read(context.Background(), cfg.Cluster, web)
	if err != nil || !found {
		t.Fatalf("read back: %v (found %v)", err, found)
	}
	want := sinktest.Projection{Revision: 1, Checksum: sn.Envelope.Checksum, Rows: sn.Envelope.Items}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("projection of the documented sink (-want +got):\n%s", d)
	}
}
