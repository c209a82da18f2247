package mongodb

import (
	"context"
	"encoding/json"
	"testing"

	"kollect.dev/kollect/pkg/exporter/backend"
)

func TestTheEstablishedDatabaseRefReadsTheDSNKey(t *testing.T) {
	creds := backend.MapCredentials{{Namespace: sinkNS, Name: "conn"}: {
		"dsn": []byte("mongodb://kollect:pw@ref.example.com:27019/?authSource=admin"), "uri": []byte("mongodb://other.example.com")}}
	for _, ref := range []string{`{"name":"conn"}`, `{"name":"conn","namespace":"` + sinkNS + `"}`, `{"name":"conn","key":"dsn"}`} {
		t.Run(ref, func(t *testing.T) {
			sp, err := decodeSpec(json.RawMessage(`{"type":"mongodb","mongodb":{"database":"inv","collection":"rows","databaseRef":` + ref + `}}`))
			if err != nil {
				t.Fatal(err)
			}
			opts, err := testBackend().clientOptions(context.Background(), sp, sinkNS, creds)
			if err != nil {
				t.Fatal(err)
			}
			if len(opts.Hosts) != 1 || opts.Hosts[0] != "ref.example.com:27019" {
				t.Errorf("hosts = %v, want the dsn key's", opts.Hosts)
			}
		})
	}
}
