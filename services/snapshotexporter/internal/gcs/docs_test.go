package gcs

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

func TestDocExamples(t *testing.T) {
	p := startPeer(t)
	creds := backend.MapCredentials{}
	want := map[string][]string{
		"inventory-lake": {"kollect/inventory/part_cluster=prod-eu-1/part_namespace=team-a/part_inventory=web/_latest.json",
			"kollect/inventory/part_cluster=prod-eu-1/part_namespace=team-a/part_inventory=web/revision=1.parquet"},
		"inventory-feed": {".kollect/state/cluster=prod-eu-1/ns=team-a/name=web.json",
			"prod-eu-1/team-a/web.ndjson.zst"},
	}
	objectstoretest.RunDocExamples(t, "docs/sinks/gcs.md", want, func(t *testing.T, o objectstoretest.DocExample) {
		creds[busv1.NamespacedName{Namespace: "team-a", Name: o.Metadata.Name}] = map[string][]byte{
			KeyCredentials: []byte(o.StringData[KeyCredentials])}
	}, func(t *testing.T, o objectstoretest.DocExample) objectstoretest.DocSink {
		if ref := o.Spec.SecretRef; ref != nil {
			// The example's Secret must be one the backend accepts;
			// the emulator then gets no credentials.
			if _, err := (Backend{}).readSecret(context.Background(), &o.Spec, "team-a", creds); err != nil {
				t.Fatalf("the example Secret is refused: %v", err)
			}
			o.Spec.SecretRef = nil
		}
		u, err := url.Parse(o.Spec.Endpoint)
		if err != nil {
			t.Fatal(err)
		}
		if o.Spec.Provisioning != nil && o.Spec.Provisioning.Mode == v1alpha1.ProvisionExisting {
			p.srv.CreateBucket(t, u.Host)
		}
		o.Spec.Endpoint = p.srv.URL + "/" + u.Host + u.Path
		if u.RawQuery != "" {
			o.Spec.Endpoint += "?" + u.RawQuery
		}
		return objectstoretest.DocSink{Sink: p.newSink(t, o.Spec, creds),
			List: func(t *testing.T) []string { return p.list(t, u.Host) }}
	})
}

// list returns every key of bucket with the plain client.
func (p *peer) list(t *testing.T, bucket string) []string {
	t.Helper()
	var keys []string
	it := p.client.Bucket(bucket).Objects(context.Background(), &storage.Query{})
	for {
		o, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return keys
		}
		if err != nil {
			t.Fatalf("list %s: %v", bucket, err)
		}
		keys = append(keys, o.Name)
	}
}
