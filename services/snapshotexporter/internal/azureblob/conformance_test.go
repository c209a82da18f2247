package azureblob

import (
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
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
					// Each sink gets a container of its own, created by
					// provisioning mode ensure.
					c := newContainerName()
					s := p.newSink(t, p.spec(c, "exports", f.format, f.compression), keySecret())
					return s, objectstoretest.Reader{Get: p.getter(t, c), Delete: p.deleter(t, c), Prefix: "exports",
						Format: f.format, Compression: f.compression}
				},
				// Azurite checks shared-key signatures: another key of
				// the right length is refused with 403.
				BadCredentials: func(t *testing.T) sink.Sink {
					c := newContainerName()
					p.createContainer(t, c)
					spec := p.spec(c, "", f.format, f.compression)
					spec.AzureBlob = &v1alpha1.AzureBlobSink{Auth: v1alpha1.AzureBlobSharedKey}
					creds := backend.MapCredentials{{Namespace: "team-a", Name: secretName}: {
						KeyAccountKey: []byte(wrongKey(testenv.AzuriteKey))}}
					return p.newSink(t, spec, creds)
				},
			})
		})
	}
}

// wrongKey is key with its first character changed: valid base64 of the
// same length, not the account's key.
func wrongKey(key string) string {
	if key[0] == 'A' {
		return "B" + key[1:]
	}
	return "A" + key[1:]
}
