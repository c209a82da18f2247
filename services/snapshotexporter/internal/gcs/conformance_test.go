package gcs

import (
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/googlecreds/googlecredstest"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

func TestConformance(t *testing.T) {
	p := startPeer(t)
	for _, f := range []struct{ format, compression string }{
		{"json", "none"}, {"parquet", "none"}, {"ndjson", "gzip"}, {"parquet", "zstd"},
	} {
		t.Run(f.format+" with compression "+f.compression, func(t *testing.T) {
			sinktest.Run(t, sinktest.Factory{
				New: func(t *testing.T) (sink.Sink, sinktest.Reader) {
					// Each sink gets a bucket of its own, created by
					// provisioning mode ensure.
					b := newBucketName()
					s := p.newSink(t, p.spec(b, "exports", f.format, f.compression), backend.MapCredentials{})
					return s, objectstoretest.Reader{Get: p.getter(b), Delete: p.deleter(b), Prefix: "exports", Format: f.format,
						Compression: f.compression}
				},
				// fake-gcs-server checks no credentials, so bad
				// credentials are a well-formed service account key that
				// its token endpoint refuses: the token request goes to
				// the emulator (the backend's token endpoint here, as
				// Google's is in production), which answers it with a 4xx
				// as Google's token endpoint answers a revoked or unknown
				// key.
				BadCredentials: func(t *testing.T) sink.Sink {
					b := newBucketName()
					p.srv.CreateBucket(t, b)
					spec := p.spec(b, "", f.format, f.compression)
					spec.SecretRef = &v1alpha1.SecretReference{Name: "gcs"}
					creds := backend.MapCredentials{{Namespace: "team-a", Name: "gcs"}: {
						KeyCredentials: googlecredstest.ServiceAccount(t, p.srv.URL+"/token")}}
					return p.newSinkOf(t, Backend{Egress: egress.Policy{AllowPrivate: true}, TokenURL: p.srv.URL + "/token"}, spec, creds)
				},
			})
		})
	}
}
