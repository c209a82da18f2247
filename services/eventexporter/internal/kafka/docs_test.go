package kafka_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

func TestDocExample(t *testing.T) {
	objs := sinktest.DocObjects[v1alpha1.KollectEventSinkSpec](t, "docs/sinks/kafka.md", "KollectEventSink")
	ks, secret := sinktest.OneDoc(t, objs, "KollectEventSink"), sinktest.OneDoc(t, objs, "Secret")
	user, pass := secret.StringData["username"], secret.StringData["password"]
	cert, ca := testCert(t)
	broker := startKafka(t, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}),
		kfake.EnableSASL(), kfake.Superuser(ks.Spec.Kafka.SASL.Mechanism, user, pass))
	ks.Spec.Kafka.Brokers = []string{broker} // the only rewrite of the spec
	creds := backend.MapCredentials{
		{Namespace: ks.Metadata.Namespace, Name: ks.Spec.SecretRef.Name}:       {"username": []byte(user), "password": []byte(pass)},
		{Namespace: ks.Metadata.Namespace, Name: ks.Spec.TLS.CASecretRef.Name}: {ks.Spec.TLS.CASecretRef.Key: []byte(ca)},
	}
	specJSON, err := json.Marshal(ks.Spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := busv1.SinkConfig{Family: busv1.FamilyEvent, Type: string(ks.Spec.Type), Namespace: ks.Metadata.Namespace, Name: ks.Metadata.Name,
		Cluster: ks.Spec.Cluster, Spec: specJSON}
	s := newSink(t, private, cfg, creds)
	sn := snap(t, web, 1, row("a", 1.0), row("b", 2.0)) // JSON numbers decode as float64
	sn.Envelope = sn.Envelope.Stamp(cfg.Cluster, exportedAt)
	write(t, s, sn)

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM([]byte(ca))
	r := reader{broker: broker, topic: ks.Spec.Kafka.Topic, perRow: ks.Spec.Kafka.Mode == v1alpha1.KafkaModePerRow,
		opts: []kgo.Opt{kgo.DialTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}),
			kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha512Mechanism())}}
	got, found, err := r.Read(context.Background(), cfg.Cluster, web)
	if err != nil || !found {
		t.Fatalf("read back: %v (found %v)", err, found)
	}
	want := sinktest.Projection{Revision: 1, Checksum: sn.Envelope.Checksum, Rows: sn.Envelope.Items}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("projection of the documented sink (-want +got):\n%s", d)
	}
}
