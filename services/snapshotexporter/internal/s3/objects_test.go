package s3

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

var inv = busv1.NamespacedName{Namespace: "team-a", Name: "web"}

func TestContentTypes(t *testing.T) {
	p := startPeer(t)
	tests := []struct {
		name, format, compression, key, contentType string
	}{
		{"json is application/json", "json", "none", "p/inventory/team-a/web.json", "application/json"},
		{"ndjson is application/x-ndjson", "ndjson", "none", "p/inventory/team-a/web.ndjson", "application/x-ndjson"},
		{"gzip files are application/gzip", "json", "gzip", "p/inventory/team-a/web.json.gz", "application/gzip"},
		{"zstd files are application/zstd", "ndjson", "zstd", "p/inventory/team-a/web.ndjson.zst", "application/zstd"},
		{"parquet is application/vnd.apache.parquet", "parquet", "zstd",
			"p/inventory/part_cluster=conformance/part_namespace=team-a/part_inventory=web/revision=1.parquet", "application/vnd.apache.parquet"},
		{"the parquet pointer is application/json", "parquet", "none",
			"p/inventory/part_cluster=conformance/part_namespace=team-a/part_inventory=web/_latest.json", "application/json"},
		{"the json state is application/json", "json", "none",
			"p/.kollect/state/cluster=conformance/ns=team-a/name=web.json", "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBucketName()
			objectstoretest.Write(t, p.newSink(t, p.spec(b, "p", tt.format, tt.compression)), objectstoretest.Pods(t, 1, 2))
			h := p.head(t, b, tt.key)
			got := []string{aws.ToString(h.ContentType), aws.ToString(h.ContentEncoding)}
			if d := cmp.Diff([]string{tt.contentType, ""}, got); d != "" {
				t.Errorf("content type and encoding (-want +got):\n%s", d)
			}
		})
	}
}

// countingBucket counts the requests of each kind; with refuseDeletes set
// it fails every delete as a refusal (permanent) instead.
type countingBucket struct {
	*bucket
	puts, gets, lists, deletes atomic.Int64
	refuseDeletes              bool
}

func (c *countingBucket) Put(ctx context.Context, key string, body []byte, ct, ce string,
	cond objectstore.Condition) (objectstore.Info, error) {
	c.puts.Add(1)
	return c.bucket.Put(ctx, key, body, ct, ce, cond)
}

// Get counts reads and heads alike: each is one request.
func (c *countingBucket) Get(ctx context.Context, key string, limit int64) ([]byte, objectstore.Info, bool, error) {
	c.gets.Add(1)
	return c.bucket.Get(ctx, key, limit)
}

func (c *countingBucket) Stat(ctx context.Context, key string) (objectstore.Info, bool, error) {
	c.gets.Add(1)
	return c.bucket.Stat(ctx, key)
}

func (c *countingBucket) List(ctx context.Context, prefix string) ([]string, error) {
	c.lists.Add(1)
	return c.bucket.List(ctx, prefix)
}

func (c *countingBucket) Delete(ctx context.Context, key string) error {
	c.deletes.Add(1)
	if c.refuseDeletes {
		return sink.Permanent(errors.New("delete refused by the test"))
	}
	return c.bucket.Delete(ctx, key)
}

// counts returns puts, gets (and heads), lists and deletes so far.
func (c *countingBucket) counts() [4]int64 {
	return [4]int64{c.puts.Load(), c.gets.Load(), c.lists.Load(), c.deletes.Load()}
}

// countingSink returns a sink of spec over a countingBucket.
func (p *peer) countingSink(t *testing.T, spec v1alpha1.KollectSnapshotSinkSpec) (*objectstore.Sink, *countingBucket, objectstore.Layout) {
	t.Helper()
	bk, layout, err := Backend{Egress: egress.Policy{AllowPrivate: true}}.build(context.Background(), sinkConfig(t, spec), p.creds())
	if err != nil {
		t.Fatal(err)
	}
	cb := &countingBucket{bucket: bk}
	return objectstore.NewSink(cb, layout, "test", nil), cb, layout
}

func TestIdenticalWrite(t *testing.T) {
	p := startPeer(t)
	for _, format := range []string{"json", "parquet"} {
		t.Run("a repeated "+format+" snapshot puts nothing and leaves the object as it was", func(t *testing.T) {
			b := newBucketName()
			s, cb, layout := p.countingSink(t, p.spec(b, "", format, "none"))
			first := objectstoretest.Pods(t, 3, 5)
			objectstoretest.Write(t, s, first)
			key := layout.DocumentKey(&first.Envelope)
			if format == "parquet" {
				key = layout.ParquetKey(&first.Envelope)
			}
			before := p.head(t, b, key)
			puts := cb.puts.Load()
			again := first
			again.Envelope = first.Envelope.Stamp("conformance", time.Now().Add(time.Hour))
			objectstoretest.Write(t, s, again)
			after := p.head(t, b, key)
			if n := cb.puts.Load() - puts; n != 0 {
				t.Errorf("the repeated write put %d objects, want none", n)
			}
			got := []any{aws.ToString(after.ETag), aws.ToTime(after.LastModified)}
			want := []any{aws.ToString(before.ETag), aws.ToTime(before.LastModified)}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("ETag and LastModified changed (-before +after):\n%s", d)
			}
		})
	}
}

func TestProvisioning(t *testing.T) {
	p := startPeer(t)
	t.Run("mode ensure creates a missing bucket on the connection test", func(t *testing.T) {
		b := newBucketName()
		s := p.newSink(t, p.spec(b, "", "json", "none"))
		if err := s.(sink.Checker).Check(context.Background()); err != nil {
			t.Fatalf("check: %v", err)
		}
		if _, err := p.client.HeadBucket(context.Background(), &awss3.HeadBucketInput{Bucket: &b}); err != nil {
			t.Fatalf("the bucket was not created: %v", err)
		}
	})
	t.Run("mode existing on a missing bucket is a permanent error naming the bucket", func(t *testing.T) {
		b := newBucketName()
		spec := p.spec(b, "", "json", "none")
		spec.Provisioning = &v1alpha1.Provisioning{Mode: v1alpha1.ProvisionExisting}
		s := p.newSink(t, spec)
		for name, err := range map[string]error{"check": s.(sink.Checker).Check(context.Background()),
			"write": s.Write(context.Background(), objectstoretest.Pods(t, 1, 1))} {
			if !sink.IsPermanent(err) || !strings.Contains(err.Error(), b) {
				t.Errorf("%s returned %v, want a permanent error naming bucket %s", name, err, b)
			}
		}
		if _, err := p.client.HeadBucket(context.Background(), &awss3.HeadBucketInput{Bucket: &b}); err == nil {
			t.Errorf("mode existing created bucket %s", b)
		}
	})
	t.Run("mode existing accepts an existing bucket", func(t *testing.T) {
		b := newBucketName()
		p.srv.CreateBucket(t, b)
		spec := p.spec(b, "", "json", "none")
		spec.Provisioning = &v1alpha1.Provisioning{Mode: v1alpha1.ProvisionExisting}
		if err := p.newSink(t, spec).(sink.Checker).Check(context.Background()); err != nil {
			t.Fatalf("check: %v", err)
		}
	})
}

func TestEgressPolicy(t *testing.T) {
	p := startPeer(t)
	t.Run("the default policy refuses the loopback peer with a permanent error", func(t *testing.T) {
		s, err := Backend{}.New(context.Background(), sinkConfig(t, p.spec(newBucketName(), "", "json", "none")), p.creds())
		if err != nil {
			t.Fatal(err)
		}
		err = s.Write(context.Background(), objectstoretest.Pods(t, 1, 1))
		if !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
			t.Fatalf("write returned %v, want a permanent error wrapping egress.ErrDenied", err)
		}
	})
}

func TestBadCredentialsMessage(t *testing.T) {
	p := startPeer(t)
	t.Run("a wrong secret is a permanent error that does not carry the secret", func(t *testing.T) {
		b := newBucketName()
		p.srv.CreateBucket(t, b)
		spec := p.spec(b, "", "json", "none")
		spec.SecretRef.Name = "wrong"
		err := p.newSink(t, spec).Write(context.Background(), objectstoretest.Pods(t, 1, 1))
		if !sink.IsPermanent(err) || strings.Contains(err.Error(), "not-the-secret") {
			t.Fatalf("write returned %v, want a permanent error without the secret", err)
		}
	})
	t.Run("a Secret without secretAccessKey is a permanent error naming the key", func(t *testing.T) {
		creds := p.creds()
		delete(creds[busv1.NamespacedName{Namespace: "team-a", Name: "s3"}], KeySecretAccessKey)
		_, err := Backend{}.New(context.Background(), sinkConfig(t, p.spec("b", "", "json", "none")), creds)
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), KeySecretAccessKey) {
			t.Fatalf("new returned %v, want a permanent error naming %s", err, KeySecretAccessKey)
		}
	})
}

func TestHistory(t *testing.T) {
	p := startPeer(t)
	t.Run("parquet keeps older revisions until the inventory is deleted", func(t *testing.T) {
		b := newBucketName()
		s := p.newSink(t, p.spec(b, "lake", "parquet", "none"))
		objectstoretest.Write(t, s, objectstoretest.Pods(t, 1, 2))
		objectstoretest.Write(t, s, objectstoretest.Pods(t, 2, 3))
		folder := "lake/inventory/part_cluster=conformance/part_namespace=team-a/part_inventory=web/"
		want := []string{folder + "_latest.json", folder + "revision=1.parquet", folder + "revision=2.parquet"}
		if d := cmp.Diff(want, p.list(t, b, "lake/")); d != "" {
			t.Errorf("objects (-want +got):\n%s", d)
		}
		del := objectstoretest.Pods(t, 3, 0)
		del.Deleted = true
		objectstoretest.Write(t, s, del)
		if d := cmp.Diff([]string(nil), p.list(t, b, "lake/")); d != "" {
			t.Errorf("objects left after the delete (-want +got):\n%s", d)
		}
	})
	t.Run("a replay writes an older revision", func(t *testing.T) {
		b := newBucketName()
		s := p.newSink(t, p.spec(b, "", "json", "none"))
		objectstoretest.Write(t, s, objectstoretest.Pods(t, 5, 1))
		old := objectstoretest.Pods(t, 4, 2)
		old.Replay = true
		objectstoretest.Write(t, s, old)
		got, _, err := p.getter(b)(context.Background(), "inventory/team-a/web.json")
		if err != nil || !strings.Contains(string(got), `"revision":4`) {
			t.Fatalf("after the replay the object holds %s (%v), want revision 4", got, err)
		}
	})
}

// list returns the keys under prefix, with the plain client.
func (p *peer) list(t testing.TB, bucket, prefix string) []string {
	t.Helper()
	out, err := p.client.ListObjectsV2(context.Background(), &awss3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix})
	if err != nil {
		t.Fatalf("list %s: %v", prefix, err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, aws.ToString(o.Key))
	}
	return keys
}
