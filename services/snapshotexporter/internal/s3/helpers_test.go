package s3

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// peer is a versitygw server with a plain SDK client for reading back.
type peer struct {
	srv    *testenv.S3
	client *awss3.Client
}

var bucketSeq atomic.Int64

func startPeer(t testing.TB) *peer {
	t.Helper()
	srv := testenv.StartS3(t)
	c := awss3.New(awss3.Options{Region: srv.Region, BaseEndpoint: aws.String(srv.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, "")})
	return &peer{srv: srv, client: c}
}

// newBucketName returns a bucket name no test used yet.
func newBucketName() string { return fmt.Sprintf("kollect-%d", bucketSeq.Add(1)) }

// creds holds the peer's good and bad credentials under team-a/s3 and
// team-a/wrong.
func (p *peer) creds() backend.MapCredentials {
	return backend.MapCredentials{
		{Namespace: "team-a", Name: "s3"}: {KeyAccessKeyID: []byte(p.srv.AccessKey),
			KeySecretAccessKey: []byte(p.srv.SecretKey)},
		{Namespace: "team-a", Name: "wrong"}: {KeyAccessKeyID: []byte(p.srv.AccessKey),
			KeySecretAccessKey: []byte("not-the-secret")},
	}
}

// spec returns an s3 sink spec for bucket/prefix on the peer.
func (p *peer) spec(bucket, prefix, format, compression string) v1alpha1.KollectSnapshotSinkSpec {
	return v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotS3,
		Endpoint:      p.srv.Endpoint + "/" + bucket + "/" + prefix,
		SinkCommon:    v1alpha1.SinkCommon{SecretRef: &v1alpha1.SecretReference{Name: "s3"}, Cluster: "conformance"},
		Serialization: &v1alpha1.SnapshotSerialization{Format: format, Compression: compression}}
}

func sinkConfig(t testing.TB, spec v1alpha1.KollectSnapshotSinkSpec) busv1.SinkConfig {
	t.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	return busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "s3", Namespace: "team-a", Name: "archive",
		Cluster: spec.Cluster, Spec: raw}
}

// newSink builds a sink of spec on the peer, allowing loopback.
func (p *peer) newSink(t testing.TB, spec v1alpha1.KollectSnapshotSinkSpec) sink.Sink {
	t.Helper()
	s, err := Backend{Egress: egress.Policy{AllowPrivate: true}}.New(context.Background(), sinkConfig(t, spec), p.creds())
	if err != nil {
		t.Fatalf("new s3 sink: %v", err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// getter reads objects of bucket with the plain client.
func (p *peer) getter(bucket string) objectstoretest.Getter {
	return func(ctx context.Context, key string) ([]byte, bool, error) {
		out, err := p.client.GetObject(ctx, &awss3.GetObjectInput{Bucket: &bucket, Key: &key})
		var nsk *types.NoSuchKey
		if errors.As(err, &nsk) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		defer out.Body.Close()
		b, err := io.ReadAll(out.Body)
		return b, err == nil, err
	}
}

// deleter deletes objects of bucket with the plain client.
func (p *peer) deleter(bucket string) func(ctx context.Context, key string) error {
	return func(ctx context.Context, key string) error {
		_, err := p.client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: &bucket, Key: &key})
		return err
	}
}

// head returns the object's metadata with the plain client.
func (p *peer) head(t testing.TB, bucket, key string) *awss3.HeadObjectOutput {
	t.Helper()
	out, err := p.client.HeadObject(context.Background(), &awss3.HeadObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatalf("head %s/%s: %v", bucket, key, err)
	}
	return out
}

// fixture returns an empty bucket of its own for objectstoretest.RunState.
func (p *peer) fixture(t *testing.T, format string) objectstoretest.Fixture {
	t.Helper()
	b := newBucketName()
	p.srv.CreateBucket(t, b)
	bk, layout, err := Backend{Egress: egress.Policy{AllowPrivate: true}}.build(context.Background(),
		sinkConfig(t, p.spec(b, "exports", format, "none")), p.creds())
	if err != nil {
		t.Fatal(err)
	}
	return objectstoretest.Fixture{Bucket: bk, Layout: layout,
		Reader: objectstoretest.Reader{Get: p.getter(b), Delete: p.deleter(b), Prefix: "exports", Format: format, Compression: "none"},
		Put: func(ctx context.Context, key string, body []byte) error {
			_, err := p.client.PutObject(ctx, &awss3.PutObjectInput{Bucket: &b, Key: &key, Body: bytes.NewReader(body)})
			return err
		}}
}
