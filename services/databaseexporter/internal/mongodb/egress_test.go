package mongodb

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
)

func TestTheDriversHTTPRequestsGoThroughThePolicy(t *testing.T) {
	spec, err := decodeSpec(json.RawMessage(`{"type":"mongodb","endpoint":"mongodb://db.example.com","mongodb":{"database":"inv","collection":"rows"}}`))
	if err != nil {
		t.Fatal(err)
	}
	opts, err := Backend{Egress: egress.Policy{AllowPrivate: true}}.clientOptions(context.Background(), spec, sinkNS, backend.MapCredentials{})
	if err != nil {
		t.Fatal(err)
	}
	if opts.HTTPClient == nil {
		t.Fatal("no HTTP client set: the driver would use its own for OCSP and cloud auth")
	}
	// An OCSP responder URL in a tenant's certificate, or the AWS auth
	// mechanism, pointing at the metadata address.
	resp, err := opts.HTTPClient.Get("http://169.254.169.254/latest/meta-data/")
	if resp != nil {
		_ = resp.Body.Close()
	}
	if !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("GET of the metadata address through the driver's HTTP client: %v, want egress.ErrDenied", err)
	}
}
