package mongodb

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

func TestNewRefusesInvalidConfig(t *testing.T) {
	const secret = "mongodb://kollect:s3cr3t-value@db.example.com/"
	creds := backend.MapCredentials{
		{Namespace: sinkNS, Name: "mongo"}:   {"uri": []byte(secret)},
		{Namespace: sinkNS, Name: "nokey"}:   {"other": []byte("x")},
		{Namespace: sinkNS, Name: "garbage"}: {"dsn": []byte("mongodb://kollect:s3cr3t-value@/%zz")},
	}
	tests := []struct {
		name, spec, mention string
	}{
		{"a spec without the mongodb block names it", `{"type":"mongodb","endpoint":"mongodb://db.example.com"}`, "spec.mongodb"},
		{"an invalid database name is refused", `{"type":"mongodb","endpoint":"mongodb://db.example.com","mongodb":{"database":"a.b","collection":"rows"}}`, "spec.mongodb.database"},
		{"an invalid collection name is refused", `{"type":"mongodb","endpoint":"mongodb://db.example.com","mongodb":{"database":"inv","collection":"$rows"}}`, "spec.mongodb.collection"},
		{"a spec with no way to find the server is refused", `{"type":"mongodb","mongodb":{"database":"inv","collection":"rows"}}`, "spec.endpoint"},
		{"a missing Secret is named", `{"type":"mongodb","secretRef":{"name":"absent"},"mongodb":{"database":"inv","collection":"rows"}}`, "absent"},
		{"a Secret without uri or dsn is named", `{"type":"mongodb","secretRef":{"name":"nokey"},"mongodb":{"database":"inv","collection":"rows"}}`, `/nokey has no key "uri" or "dsn"`},
		{"a databaseRef key that is missing is named", `{"type":"mongodb","mongodb":{"databaseRef":{"name":"mongo","key":"conn"},"database":"inv","collection":"rows"}}`, `/mongo has no key "conn"`},
		{"an unparsable connection string is refused without quoting it", `{"type":"mongodb","secretRef":{"name":"garbage"},"mongodb":{"database":"inv","collection":"rows"}}`, "Secret garbage key dsn"},
		{"an unparsable endpoint is refused", `{"type":"mongodb","endpoint":"http://db","mongodb":{"database":"inv","collection":"rows"}}`, "spec.endpoint"},
		{"an unparsable endpoint with a password is refused without quoting it", `{"type":"mongodb","endpoint":"mongodb://kollect:s3cr3t-value@db:notaport","mongodb":{"database":"inv","collection":"rows"}}`, "spec.endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := busv1.SinkConfig{Type: "mongodb", Namespace: sinkNS, Name: "rows", Spec: json.RawMessage(tt.spec)}
			s, err := testBackend().New(context.Background(), cfg, creds)
			if err == nil {
				_ = s.Close(context.Background())
				t.Fatal("New succeeded, want an error")
			}
			if !sink.IsPermanent(err) || !strings.Contains(err.Error(), tt.mention) {
				t.Fatalf("New returned %v (permanent %v), want a permanent error mentioning %q", err, sink.IsPermanent(err), tt.mention)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Fatalf("the error quotes the secret: %v", err)
			}
		})
	}
}

func TestEndpointWithSecretCredentials(t *testing.T) {
	t.Run("the endpoint locates the server and the Secret supplies the credentials", func(t *testing.T) {
		spec := `{"type":"mongodb","endpoint":"mongodb://db.example.com:27018/?appName=x","secretRef":{"name":"mongo"},"mongodb":{"database":"inv","collection":"rows"}}`
		sp, err := decodeSpec(json.RawMessage(spec))
		if err != nil {
			t.Fatal(err)
		}
		creds := backend.MapCredentials{{Namespace: sinkNS, Name: "mongo"}: {"uri": []byte("mongodb://kollect:pw@other.example.com/?authSource=admin")}}
		opts, err := testBackend().clientOptions(context.Background(), sp, sinkNS, creds)
		if err != nil {
			t.Fatal(err)
		}
		if len(opts.Hosts) != 1 || opts.Hosts[0] != "db.example.com:27018" {
			t.Errorf("hosts = %v, want the endpoint's", opts.Hosts)
		}
		if opts.Auth == nil || opts.Auth.Username != "kollect" || opts.Auth.Password != "pw" || opts.Auth.AuthSource != "admin" {
			t.Errorf("auth = %+v, want the Secret's credentials", opts.Auth)
		}
	})
}
