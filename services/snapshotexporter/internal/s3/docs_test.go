package s3

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// docObject is one object of a yaml block of a doc page.
type docObject = sinktest.DocObject[v1alpha1.KollectSnapshotSinkSpec]

func TestDocExamples(t *testing.T) {
	p := startPeer(t)
	creds := backend.MapCredentials{}
	var sinks []docObject
	for _, o := range sinktest.DocObjects[v1alpha1.KollectSnapshotSinkSpec](t, "docs/sinks/s3.md", "KollectSnapshotSink") {
		switch o.Kind {
		case "Secret":
			if _, ok := o.StringData[KeyAccessKeyID]; !ok || o.StringData[KeySecretAccessKey] == "" {
				t.Fatalf("the example Secret %s lacks %s or %s", o.Metadata.Name, KeyAccessKeyID, KeySecretAccessKey)
			}
			creds[busv1.NamespacedName{Namespace: "team-a", Name: o.Metadata.Name}] = map[string][]byte{
				KeyAccessKeyID: []byte(p.srv.AccessKey), KeySecretAccessKey: []byte(p.srv.SecretKey)}
		case "KollectSnapshotSink":
			sinks = append(sinks, o)
		}
	}
	want := map[string][]string{
		"inventory-archive": {"kollect/.kollect/state/cluster=prod-eu-1/ns=team-a/name=web.json",
			"kollect/prod-eu-1/team-a/web.json.gz"},
		"inventory-lake": {"kollect/inventory/part_cluster=prod-eu-1/part_namespace=team-a/part_inventory=web/_latest.json",
			"kollect/inventory/part_cluster=prod-eu-1/part_namespace=team-a/part_inventory=web/revision=1.parquet"},
	}
	if len(sinks) != len(want) {
		t.Fatalf("the page has %d sinks, the test knows %d", len(sinks), len(want))
	}
	for _, o := range sinks {
		t.Run("the example "+o.Metadata.Name+" writes to the peer", func(t *testing.T) {
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
			cfg := sinkConfig(t, o.Spec)
			s, err := Backend{Egress: egress.Policy{AllowPrivate: true}}.New(context.Background(), cfg, creds)
			if err != nil {
				t.Fatalf("new: %v", err)
			}
			if err := s.(sink.Checker).Check(context.Background()); err != nil {
				t.Fatalf("check: %v", err)
			}
			objectstoretest.Write(t, s, stamped(t, o.Spec.Cluster))
			if d := cmp.Diff(want[o.Metadata.Name], p.list(t, name, "")); d != "" {
				t.Errorf("objects (-want +got):\n%s", d)
			}
			checkDocObject(t, p, name, want[o.Metadata.Name][1])
		})
	}
}

// stamped is a one-row snapshot of team-a/web stamped for cluster.
func stamped(t *testing.T, cluster string) sink.Snapshot {
	s := objectstoretest.Pods(t, 1, 1)
	s.Envelope = s.Envelope.Stamp(cluster, time.Now())
	return s
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
