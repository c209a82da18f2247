package nats_test

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	natssink "kollect.dev/kollect/services/eventexporter/internal/nats"
)

func withSecret(sp map[string]any) map[string]any {
	sp["secretRef"] = map[string]any{"name": "nats-creds"}
	return sp
}

func secret(kv ...string) backend.MapCredentials {
	d := map[string][]byte{}
	for i := 0; i+1 < len(kv); i += 2 {
		d[kv[i]] = []byte(kv[i+1])
	}
	return backend.MapCredentials{{Namespace: "team-a", Name: "nats-creds"}: d}
}

func TestAuthentication(t *testing.T) {
	tokenPeer := startNATS(t, func(o *server.Options) { o.Authorization = "tok" }, nats.Token("tok"))
	userPeer := startNATS(t, func(o *server.Options) { o.Username, o.Password = "alice", "pw" }, nats.UserInfo("alice", "pw"))
	tests := []struct {
		name  string
		peer  *peer
		creds backend.MapCredentials
		ok    bool
	}{
		{"the right token publishes", tokenPeer, secret("token", "tok"), true},
		{"a wrong token is permanent", tokenPeer, secret("token", "nope"), false},
		{"the right username and password publish", userPeer, secret("username", "alice", "password", "pw"), true},
		{"a wrong password is permanent", userPeer, secret("username", "alice", "password", "nope"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSink(t, private, sinkConfig(t, withSecret(spec(tt.peer.url, "auth.events", "AUTH"))), tt.creds)
			err := s.Write(context.Background(), snap(t, 1, row("a", 1)))
			checkErr := s.Check(context.Background())
			if tt.ok {
				if err != nil || checkErr != nil {
					t.Fatalf("write: %v; check: %v", err, checkErr)
				}
				return
			}
			expectPermanent(t, err, "Authorization Violation")
			expectPermanent(t, checkErr, "Authorization Violation")
		})
	}
}

func TestSecretErrors(t *testing.T) {
	tests := []struct {
		name  string
		creds backend.MapCredentials
		want  string
	}{
		{"a missing Secret is permanent and named", backend.MapCredentials{}, "team-a/nats-creds"},
		{"a username without a password is permanent", secret("username", "alice"), `no key "password"`},
		{"a Secret without any known key is permanent", secret("other", "x"), `"token"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := private.New(context.Background(), sinkConfig(t, withSecret(spec("nats://nats.example.com:4222", "s", ""))), tt.creds)
			expectPermanent(t, err, tt.want)
		})
	}
}

func TestDefaultEgressPolicyRefusesLoopback(t *testing.T) {
	p := startNATS(t, nil)
	s := newSink(t, natssink.Backend{}, sinkConfig(t, spec(p.url, "denied.events", "DENIED")), nil)
	err := s.Write(context.Background(), snap(t, 1, row("a", 1)))
	if !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("write to a loopback server under the default policy: %v, want a permanent error wrapping egress.ErrDenied", err)
	}
}

func TestTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	serverTLS := &tls.Config{Certificates: srv.TLS.Certificates, MinVersion: tls.VersionTLS12}
	p := startNATS(t, func(o *server.Options) { o.TLS, o.TLSConfig, o.TLSTimeout = true, serverTLS, 5 },
		nats.Secure(&tls.Config{InsecureSkipVerify: true})) // the test's admin client
	tests := []struct {
		name string
		tls  map[string]any
		ok   bool
	}{
		{"a CA bundle in spec.tls verifies the server", map[string]any{"caBundle": ca}, true},
		{"the system roots refuse the test CA permanently", nil, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := spec(p.url, "tls.events", "TLS")
			if tt.tls != nil {
				sp["tls"] = tt.tls
			}
			s := newSink(t, private, sinkConfig(t, sp), nil)
			err := s.Write(context.Background(), snap(t, uint64(i+1), row("a", 1)))
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
