package s3

import (
	"context"
	"net/url"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

func TestDocExamples(t *testing.T) {
	p := startPeer(t)
	creds := backend.MapCredentials{}
	want := map[string][]string{
		"inventory-archive": {"kollect/.kollect/state/cluster=prod-eu-1/ns=team-a/name=web.json",
			"kollect/prod-eu-1/team-a/web.json.gz"},
		"inventory-lake": {"kollect/inventory/part_cluster=prod-eu-1/part_namespace=team-a/part_inventory=web/_latest.json",
			"kollect/inventory/part_cluster=prod-eu-1/part_namespace=team-a/part_inventory=web/revision=1.parquet"},
	}
	objectstoretest.RunDocExamples(t, "docs/sinks/s3.md", want, func(t *testing.T, o objectstoretest.DocExample) {
		if _, ok := o.StringData[KeyAccessKeyID]; !ok || o.StringData[KeySecretAccessKey] == "" {
			t.Fatalf("the example Secret %s lacks %s or %s", o.Metadata.Name, KeyAccessKeyID, KeySecretAccessKey)
		}
		creds[busv1.NamespacedName{Namespace: "team-a", Name: o.Metadata.Name}] = map[string][]byte{
			KeyAccessKeyID: []byte(p.srv.AccessKey), KeySecretAccessKey: []byte(p.srv.SecretKey)}
	}, func(t *testing.T, o objectstoretest.DocExample) objectstoretest.DocSink {
		u, err := url.Parse(o.Spec.Endpoint)
		if err != nil {
			t.Fatal(err)
		}
		bucket := u.Host + u.Path // s3://bucket/prefix
		if u.Scheme != "s3" {
			bucket = strings.TrimPrefix(u.Path, "/")
		}
		o.Spec.Endpoint = p.srv.Endpoint + "/" + bucket
		name, _, _ := strings.Cut(bucket, "/")
		if o.Spec.Provisioning != nil && o.Spec.Provisioning.Mode == v1alpha1.ProvisionExisting {
			p.srv.CreateBucket(t, name)
		}
		s, err := Backend{Egress: egress.Policy{AllowPrivate: true}}.New(context.Background(), sinkConfig(t, o.Spec), creds)
		if err != nil {
			t.Fatalf("new: %v", err)
		}
		return objectstoretest.DocSink{Sink: s,
			List:   func(t *testing.T) []string { return p.list(t, name, "") },
			Verify: func(t *testing.T, keys []string) { checkDocObject(t, p, name, keys[len(keys)-1]) }}
	})
}

// checkDocObject decodes the data object at key.
func checkDocObject(t *testing.T, p *peer, bucket, key string) {
	t.Helper()
	body, _, err := p.getter(bucket)(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(key, ".parquet") {
		pf, err := objectstoretest.ReadParquet(body)
		if err != nil || len(pf.Rows) != 1 || pf.Values[0]["attr_image"] != "nginx" {
			t.Fatalf("parquet file: %v, %+v", err, pf)
		}
		return
	}
	if body, err = objectstoretest.Decompress(key, body); err != nil {
		t.Fatal(err)
	}
	env, err := objectstoretest.DecodeDocument("json", body)
	if err != nil || env.Cluster != "prod-eu-1" || len(env.Items) != 1 {
		t.Fatalf("json object: %v, %+v", err, env)
	}
}
