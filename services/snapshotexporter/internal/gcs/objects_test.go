package gcs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

var none = backend.MapCredentials{}

// snap is a stamped snapshot of n rows at revision.
func snap(t testing.TB, revision uint64, n int) sink.Snapshot {
	t.Helper()
	rows := make([]busv1.Row, n)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a",
			Name: "pod-" + string(rune('a'+i)), UID: "uid-" + string(rune('a'+i)), Version: "v1", Kind: "Pod",
			Attributes: map[string]any{"restarts": float64(i)}}
	}
	env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "web"}, revision, 1, rows)
	if err != nil {
		t.Fatal(err)
	}
	return sink.Snapshot{Envelope: env.Stamp("conformance", time.Now())}
}

func write(t testing.TB, s sink.Sink, snap sink.Snapshot) {
	t.Helper()
	if err := s.Write(context.Background(), snap); err != nil {
		t.Fatalf("write revision %d: %v", snap.Envelope.Revision, err)
	}
}

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
			write(t, p.newSink(t, p.spec(b, "p", tt.format, tt.compression), none), snap(t, 1, 2))
			a := p.attrs(t, b, tt.key)
			if d := cmp.Diff([]string{tt.contentType, ""}, []string{a.ContentType, a.ContentEncoding}); d != "" {
				t.Errorf("content type and encoding (-want +got):\n%s", d)
			}
		})
	}
	t.Run("a repeated snapshot leaves the object's generation as it was", func(t *testing.T) {
		b := newBucketName()
		s := p.newSink(t, p.spec(b, "", "json", "none"), none)
		first := snap(t, 2, 3)
		write(t, s, first)
		before := p.attrs(t, b, "inventory/team-a/web.json")
		again := first
		again.Envelope = first.Envelope.Stamp("conformance", time.Now().Add(time.Hour))
		write(t, s, again)
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
			"write": s.Write(context.Background(), snap(t, 1, 1))} {
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
		err = s.Write(context.Background(), snap(t, 1, 1))
		if !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
			t.Fatalf("write returned %v, want a permanent error wrapping egress.ErrDenied", err)
		}
	})
}
