package mongodb

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// A tenant's URI cannot make the shared exporter read a file or
// authenticate as the exporter's own identity: refused before the driver
// applies the URI (which reads tlsCAFile at once), so the file is never
// opened.
func TestConnectionStringsCannotNameLocalFilesOrAmbientMechanisms(t *testing.T) {
	file, opened := testenv.Tripwire(t, "-----BEGIN CERTIFICATE-----")
	spec := `{"type":"mongodb","secretRef":{"name":"mongo"},"mongodb":{"database":"inv","collection":"rows"}}`
	sp, err := decodeSpec(json.RawMessage(spec))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, uri, want string }{
		{"tlsCAFile", "mongodb://db.example.com/?tls=true&tlsCAFile=" + file, "tlsCAFile"},
		{"a client key file, any case", "mongodb://db.example.com/?TLSCertificateKeyFile=" + file, "TLSCertificateKeyFile"},
		{"the legacy ssl alias", "mongodb://db.example.com/?sslCertificateAuthorityFile=" + file, "sslCertificateAuthorityFile"},
		{"MONGODB-AWS", "mongodb://db.example.com/?authMechanism=MONGODB-AWS", "authMechanism MONGODB-AWS"},
		{"GSSAPI", "mongodb://u@db.example.com/?authMechanism=GSSAPI", "authMechanism GSSAPI"},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			creds := backend.MapCredentials{{Namespace: sinkNS, Name: "mongo"}: {"uri": []byte(tc.uri)}}
			_, err := testBackend().clientOptions(context.Background(), sp, sinkNS, creds)
			if err == nil || !sink.IsPermanent(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("clientOptions = %v, want a permanent error naming %s", err, tc.want)
			}
			if strings.Contains(err.Error(), file) {
				t.Errorf("the error quotes the URI: %v", err)
			}
		})
	}
	if opened() {
		t.Fatal("a file named by a URI was opened")
	}
}
