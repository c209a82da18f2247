package nats_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

func TestDocExample(t *testing.T) {
	objs := sinktest.DocObjects[v1alpha1.KollectEventSinkSpec](t, "docs/sinks/nats.md", "KollectEventSink")
	es, secret := sinktest.OneDoc(t, objs, "KollectEventSink"), sinktest.OneDoc(t, objs, "Secret")
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
	creds := backend.MapCredentials{
		{Namespace: es.Metadata.Namespace, Name: es.Spec.SecretRef.Name}:       {"token": []byte(token)},
		{Namespace: es.Metadata.Namespace, Name: es.Spec.TLS.CASecretRef.Name}: {es.Spec.TLS.CASecretRef.Key: ca},
	}
	specJSON, err := json.Marshal(es.Spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := busv1.SinkConfig{Family: busv1.FamilyEvent, Type: string(es.Spec.Type), Namespace: es.Metadata.Namespace, Name: es.Metadata.Name,
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
