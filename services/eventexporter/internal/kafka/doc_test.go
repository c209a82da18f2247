package kafka_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
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
	objs := docObjects(t, "../../../../docs/sinks/kafka.md")
	var ks v1alpha1.KollectEventSink
	var secret struct {
		Metadata   struct{ Name, Namespace string }
		StringData map[string]string `json:"stringData"`
	}
	if err := yaml.Unmarshal(objs["KollectEventSink"], &ks); err != nil {
		t.Fatalf("decode the example sink: %v", err)
	}
	if err := yaml.Unmarshal(objs["Secret"], &secret); err != nil {
		t.Fatalf("decode the example Secret: %v", err)
	}
	user, pass := secret.StringData["username"], secret.StringData["password"]
	cert, ca := testCert(t)
	broker := startKafka(t, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}),
		kfake.EnableSASL(), kfake.Superuser(ks.Spec.Kafka.SASL.Mechanism, user, pass))
	ks.Spec.Kafka.Brokers = []string{broker} // the only rewrite of the spec
	creds := exporter.MapCredentials{
		{Namespace: ks.Namespace, Name: ks.Spec.SecretRef.Name}:       {"username": []byte(user), "password": []byte(pass)},
		{Namespace: ks.Namespace, Name: ks.Spec.TLS.CASecretRef.Name}: {ks.Spec.TLS.CASecretRef.Key: []byte(ca)},
	}
	specJSON, err := json.Marshal(ks.Spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := busv1.SinkConfig{Family: busv1.FamilyEvent, Type: string(ks.Spec.Type), Namespace: ks.Namespace, Name: ks.Name,
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
