package s3

import (
	"testing"

	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

func TestConformance(t *testing.T) {
	p := startPeer(t)
	for _, f := range []struct{ format, compression string }{
		{"json", "none"}, {"ndjson", "none"}, {"parquet", "none"},
		{"json", "gzip"}, {"ndjson", "zstd"}, {"parquet", "zstd"}, {"parquet", "gzip"},
	} {
		t.Run(f.format+" with compression "+f.compression, func(t *testing.T) {
			sinktest.Run(t, sinktest.Factory{
				New: func(t *testing.T) (sink.Sink, sinktest.Reader) {
					// Each sink gets a bucket of its own, created by
					// provisioning mode ensure.
					b := newBucketName()
					s := p.newSink(t, p.spec(b, "exports", f.format, f.compression))
					return s, objectstoretest.Reader{Get: p.getter(b), Delete: p.deleter(b), Prefix: "exports", Format: f.format,
						Compression: f.compression}
				},
				BadCredentials: func(t *testing.T) sink.Sink {
					b := newBucketName()
					p.srv.CreateBucket(t, b)
					spec := p.spec(b, "", f.format, f.compression)
					spec.SecretRef.Name = "wrong"
					return p.newSink(t, spec)
				},
			})
		})
	}
}
