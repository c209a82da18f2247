package kafka_test

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

// testCert returns a server certificate for 127.0.0.1 and its PEM, which
// serves as the CA bundle (httptest's self-signed certificate).
func testCert(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.TLS.Certificates[0], string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
}

func TestTLS(t *testing.T) {
	cert, ca := testCert(t)
	broker := startKafka(t, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}))
	tests := []struct {
		name string
		tls  map[string]any // spec.tls
		ok   bool
	}{
		{"a CA bundle in spec.tls verifies the brokers", map[string]any{"caBundle": ca}, true},
		{"the system roots refuse the test CA permanently", nil, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := spec(broker, "tls", "")
			sp["kafka"].(map[string]any)["tls"] = true
			if tt.tls != nil {
				sp["tls"] = tt.tls
			}
			s := newSink(t, private, sinkConfig(t, sp), nil)
			err := s.Write(context.Background(), snap(t, web, uint64(i+1), row("a", 1)))
			if tt.ok {
				if err != nil {
					t.Fatalf("write over TLS: %v", err)
				}
				return
			}
			expectPermanent(t, err, "certificate")
		})
	}
}
