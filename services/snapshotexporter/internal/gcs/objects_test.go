package gcs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

var none = backend.MapCredentials{}

func (p *peer) attrs(t testing.TB, bucket, key string) *storage.ObjectAttrs {
	t.Helper()
	a, err := p.client.Bucket(bucket).Object(key).Attrs(context.Background())
	if err != nil {
		t.Fatalf("attributes of %s/%s: %v", bucket, key, err)
	}
	return a
}

func TestParseEndpoint(t *testing.T) {
	tests := []struct {
		name, raw string
		want      objectstore.Endpoint
	}{
		{"a gs URL is a bucket and prefix", "gs://lake/kollect/prod", objectstore.Endpoint{Bucket: "lake", Prefix: "kollect/prod"}},
		{"a gs URL may name the project", "gs://lake?project=acme", objectstore.Endpoint{Bucket: "lake", Param: "acme"}},
		{"an http URL is a custom server", "http://127.0.0.1:4443/lake/a/",
			objectstore.Endpoint{URL: "http://127.0.0.1:4443", Bucket: "lake", Prefix: "a"}},
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
	for _, raw := range []string{"s3://lake", "gs://", "https://host", "gs://lake?region=x"} {
		t.Run("the endpoint "+raw+" is refused", func(t *testing.T) {
			if _, err := parseEndpoint(raw); !sink.IsPermanent(err) {
				t.Fatalf("parseEndpoint returned %v, want a permanent error", err)
			}
		})
	}
}

func TestObjects(t *testing.T) {
	p := startPeer(t)
	tests := []struct {
		name, format, compression, key, contentType string
	}{
		{"json is application/json", "json", "none", "p/inventory/team-a/web.json", "application/json"},
		{"gzip ndjson is application/gzip", "ndjson", "gzip", "p/inventory/team-a/web.ndjson.gz", "application/gzip"},
		{"parquet is application/vnd.apache.parquet", "parquet", "none",
			"p/inventory/part_cluster=conformance/part_namespace=team-a/part_inventory=web/revision=1.parquet", "application/vnd.apache.parquet"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" without Content-Encoding", func(t *testing.T) {
			b := newBucketName()
			objectstoretest.Write(t, p.newSink(t, p.spec(b, "p", tt.format, tt.compression), none), objectstoretest.Pods(t, 1, 2))
			a := p.attrs(t, b, tt.key)
			if d := cmp.Diff([]string{tt.contentType, ""}, []string{a.ContentType, a.ContentEncoding}); d != "" {
				t.Errorf("content type and encoding (-want +got):\n%s", d)
			}
		})
	}
	t.Run("a repeated snapshot leaves the object's generation as it was", func(t *testing.T) {
		b := newBucketName()
		s := p.newSink(t, p.spec(b, "", "json", "none"), none)
		first := objectstoretest.Pods(t, 2, 3)
		objectstoretest.Write(t, s, first)
		before := p.attrs(t, b, "inventory/team-a/web.json")
		again := first
		again.Envelope = first.Envelope.Stamp("conformance", time.Now().Add(time.Hour))
		objectstoretest.Write(t, s, again)
		after := p.attrs(t, b, "inventory/team-a/web.json")
		if before.Generation != after.Generation || before.MD5 == nil || string(before.MD5) != string(after.MD5) {
			t.Errorf("the object was rewritten: generation %d -> %d", before.Generation, after.Generation)
		}
	})
}

func TestProvisioning(t *testing.T) {
	p := startPeer(t)
	t.Run("mode ensure creates a missing bucket in the endpoint's project", func(t *testing.T) {
		b := newBucketName()
		if err := p.newSink(t, p.spec(b, "", "json", "none"), none).(sink.Checker).Check(context.Background()); err != nil {
			t.Fatalf("check: %v", err)
		}
		if _, err := p.client.Bucket(b).Attrs(context.Background()); err != nil {
			t.Fatalf("the bucket was not created: %v", err)
		}
	})
	t.Run("mode existing on a missing bucket is a permanent error naming the bucket", func(t *testing.T) {
		b := newBucketName()
		spec := p.spec(b, "", "json", "none")
		spec.Provisioning = &v1alpha1.Provisioning{Mode: v1alpha1.ProvisionExisting}
		s := p.newSink(t, spec, none)
		for name, err := range map[string]error{"check": s.(sink.Checker).Check(context.Background()),
			"write": s.Write(context.Background(), objectstoretest.Pods(t, 1, 1))} {
			if !sink.IsPermanent(err) || !strings.Contains(err.Error(), b) {
				t.Errorf("%s returned %v, want a permanent error naming bucket %s", name, err, b)
			}
		}
		if _, err := p.client.Bucket(b).Attrs(context.Background()); !errors.Is(err, storage.ErrBucketNotExist) {
			t.Errorf("mode existing: bucket attributes returned %v, want ErrBucketNotExist", err)
		}
	})
	t.Run("a Secret without credentials.json is a permanent error naming the key", func(t *testing.T) {
		spec := p.spec("b", "", "json", "none")
		spec.SecretRef = &v1alpha1.SecretReference{Name: "gcs"}
		creds := backend.MapCredentials{{Namespace: "team-a", Name: "gcs"}: {"key.json": []byte("{}")}}
		_, err := Backend{}.New(context.Background(), sinkConfig(t, spec), creds)
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), KeyCredentials) {
			t.Fatalf("new returned %v, want a permanent error naming %s", err, KeyCredentials)
		}
	})
}

func TestEgressPolicy(t *testing.T) {
	p := startPeer(t)
	t.Run("the default policy refuses the loopback peer with a permanent error", func(t *testing.T) {
		s, err := Backend{}.New(context.Background(), sinkConfig(t, p.spec(newBucketName(), "", "json", "none")), none)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close(context.Background()) })
		err = s.Write(context.Background(), objectstoretest.Pods(t, 1, 1))
		if !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
			t.Fatalf("write returned %v, want a permanent error wrapping egress.ErrDenied", err)
		}
	})
}
