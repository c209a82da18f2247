package s3

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

func TestParseEndpoint(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want objectstore.Endpoint
	}{
		{"an s3 URL is an AWS bucket and prefix", "s3://inventory-lake/kollect/prod",
			objectstore.Endpoint{Bucket: "inventory-lake", Prefix: "kollect/prod"}},
		{"an s3 URL may name its region", "s3://inventory-lake?region=eu-west-1",
			objectstore.Endpoint{Bucket: "inventory-lake", Param: "eu-west-1"}},
		{"an https URL is a path-style server", "https://s3.example.com:9000/exports/a/b/",
			objectstore.Endpoint{URL: "https://s3.example.com:9000", Bucket: "exports", Prefix: "a/b"}},
		{"an http URL without a prefix", "http://127.0.0.1:7070/exports?region=local",
			objectstore.Endpoint{URL: "http://127.0.0.1:7070", Bucket: "exports", Param: "local"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseEndpoint(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("endpoint (-want +got):\n%s", d)
			}
		})
	}
	for _, raw := range []string{"gs://bucket", "s3://", "https://host", "https://host/", "s3://b?acl=private",
		"https://user:pw@host/bucket"} {
		t.Run("the endpoint "+raw+" is refused", func(t *testing.T) {
			_, err := parseEndpoint(raw)
			if !sink.IsPermanent(err) {
				t.Fatalf("parseEndpoint returned %v, want a permanent error", err)
			}
			if strings.Contains(err.Error(), "user:pw") {
				t.Fatalf("the error %q quotes the credentials", err)
			}
		})
	}
}

func TestResolveRegion(t *testing.T) {
	tests := []struct {
		name                  string
		query, secret, sdkDef string
		want                  string
	}{
		{"the endpoint's region wins", "eu-west-1", "us-west-2", "ap-south-1", "eu-west-1"},
		{"the Secret's region comes next", "", "us-west-2", "ap-south-1", "us-west-2"},
		{"then the SDK's default configuration", "", "", "ap-south-1", "ap-south-1"},
		{"us-east-1 when nothing names one", "", "", "", "us-east-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := resolveRegion(tt.query, tt.secret, tt.sdkDef); got != tt.want {
				t.Errorf("region %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBuiltKeys(t *testing.T) {
	creds := backend.MapCredentials{{Namespace: "team-a", Name: "s3"}: {KeyAccessKeyID: []byte("AK"),
		KeySecretAccessKey: []byte("SK"), KeyRegion: []byte("eu-central-1")}}
	env := busv1.Envelope{Cluster: "prod", Revision: 9, Generation: 2, ExportedAt: time.Now(),
		Inventory: busv1.NamespacedName{Namespace: "team-a", Name: "web"}}
	tests := []struct {
		name, endpoint, template string
		format                   string
		wantKey, wantBase        string
		pathStyle                bool
		region                   string
	}{
		{"an AWS endpoint keys objects under its prefix", "s3://lake/kollect?region=eu-west-1", "", "json",
			"kollect/inventory/team-a/web.json", "", false, "eu-west-1"},
		{"a path-style endpoint renders the pathTemplate", "https://s3.example.com/lake/x",
			"{cluster}/{namespace}/{name}-{generation}{extension}", "ndjson",
			"x/prod/team-a/web-2.ndjson", "https://s3.example.com", true, "eu-central-1"},
		{"parquet keys follow the partitioned layout", "http://10.0.0.1:9000/lake", "", "parquet",
			"inventory/part_cluster=prod/part_namespace=team-a/part_inventory=web/revision=9.parquet", "http://10.0.0.1:9000", true, "eu-central-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotS3, Endpoint: tt.endpoint,
				PathTemplate:  tt.template,
				SinkCommon:    v1alpha1.SinkCommon{SecretRef: &v1alpha1.SecretReference{Name: "s3"}},
				Serialization: &v1alpha1.SnapshotSerialization{Format: tt.format}}
			bk, layout, err := Backend{Egress: egress.Policy{}}.build(context.Background(), sinkConfig(t, spec), creds)
			if err != nil {
				t.Fatal(err)
			}
			obj, err := layout.Encode(&env, nil)
			if err != nil {
				t.Fatal(err)
			}
			o := bk.client.Options()
			got := []any{obj.Key, aws.ToString(o.BaseEndpoint), o.UsePathStyle, o.Region, bk.name}
			want := []any{tt.wantKey, tt.wantBase, tt.pathStyle, tt.region, "lake"}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("key, base endpoint, path style, region, bucket (-want +got):\n%s", d)
			}
		})
	}
}
