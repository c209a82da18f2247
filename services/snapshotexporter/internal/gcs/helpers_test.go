package gcs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

	"cloud.google.com/go/storage"
	"google.golang.org/api/option"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// peer is a fake-gcs-server with a plain storage client for reading back.
type peer struct {
	srv    *testenv.GCS
	client *storage.Client
}

var bucketSeq atomic.Int64

func startPeer(t testing.TB) *peer {
	t.Helper()
	srv := testenv.StartGCS(t)
	c, err := storage.NewClient(context.Background(), option.WithEndpoint(srv.URL+"/storage/v1/"),
		option.WithoutAuthentication(), storage.WithJSONReads())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &peer{srv: srv, client: c}
}

func newBucketName() string { return fmt.Sprintf("kollect-%d", bucketSeq.Add(1)) }

// spec returns a gcs sink spec for bucket/prefix on the peer, without
// secretRef (the emulator has no authentication).
func (p *peer) spec(bucket, prefix, format, compression string) v1alpha1.KollectSnapshotSinkSpec {
	return v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGCS,
		Endpoint:      p.srv.URL + "/" + bucket + "/" + prefix + "?project=kollect-test",
		SinkCommon:    v1alpha1.SinkCommon{Cluster: "conformance"},
		Serialization: &v1alpha1.SnapshotSerialization{Format: format, Compression: compression}}
}

func sinkConfig(t testing.TB, spec v1alpha1.KollectSnapshotSinkSpec) busv1.SinkConfig {
	t.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	return busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "gcs", Namespace: "team-a", Name: "archive",
		Cluster: spec.Cluster, Spec: raw}
}

// newSink builds a sink of spec on the peer, allowing loopback.
func (p *peer) newSink(t testing.TB, spec v1alpha1.KollectSnapshotSinkSpec, creds backend.Credentials) sink.Sink {
	t.Helper()
	return p.newSinkOf(t, Backend{Egress: egress.Policy{AllowPrivate: true}}, spec, creds)
}

// newSinkOf builds a sink of spec with backend b.
func (p *peer) newSinkOf(t testing.TB, b Backend, spec v1alpha1.KollectSnapshotSinkSpec, creds backend.Credentials) sink.Sink {
	t.Helper()
	s, err := b.New(context.Background(), sinkConfig(t, spec), creds)
	if err != nil {
		t.Fatalf("new gcs sink: %v", err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// getter reads objects of bucket with the plain client.
func (p *peer) getter(bucket string) objectstoretest.Getter {
	return func(ctx context.Context, key string) ([]byte, bool, error) {
		r, err := p.client.Bucket(bucket).Object(key).NewReader(ctx)
		if errors.Is(err, storage.ErrObjectNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		return b, err == nil, err
	}
}

// deleter deletes objects of bucket with the plain client.
func (p *peer) deleter(bucket string) func(ctx context.Context, key string) error {
	return func(ctx context.Context, key string) error {
		return p.client.Bucket(bucket).Object(key).Delete(ctx)
	}
}

// fixture returns an empty bucket of its own for objectstoretest.RunState,
// on the plain client (the sink's bucket type over it).
func (p *peer) fixture(t *testing.T, format string) objectstoretest.Fixture {
	t.Helper()
	b := newBucketName()
	if err := p.client.Bucket(b).Create(context.Background(), "kollect-test", nil); err != nil {
		t.Fatal(err)
	}
	spec := p.spec(b, "exports", format, "none")
	layout, err := objectstore.NewLayout(&spec, "exports")
	if err != nil {
		t.Fatal(err)
	}
	bk := &bucket{client: p.client, handle: p.client.Bucket(b), name: b, mode: v1alpha1.ProvisionExisting}
	return objectstoretest.Fixture{Bucket: bk, Layout: layout,
		Reader: objectstoretest.Reader{Get: p.getter(b), Delete: p.deleter(b), Prefix: "exports", Format: format, Compression: "none"},
		Put: func(ctx context.Context, key string, body []byte) error {
			w := p.client.Bucket(b).Object(key).NewWriter(ctx)
			if _, err := w.Write(body); err != nil {
				_ = w.Close()
				return err
			}
			return w.Close()
		}}
}
