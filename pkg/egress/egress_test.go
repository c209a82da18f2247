package egress_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
)

func TestPolicyRefusesPrivateAddressesAtConnectTime(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	tests := []struct {
		name   string
		policy egress.Policy
		host   string
		denied bool
	}{
		{"a loopback address is refused by default", egress.Policy{}, "127.0.0.1", true},
		{"a name resolving to loopback is refused by default", egress.Policy{}, "localhost", true},
		{"the in-cluster opt-in admits loopback", egress.Policy{AllowPrivate: true}, "127.0.0.1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := tt.policy.HTTPClient(nil).Get("http://" + net.JoinHostPort(tt.host, port))
			if resp != nil {
				_ = resp.Body.Close()
			}
			if got := errors.Is(err, egress.ErrDenied); got != tt.denied {
				t.Fatalf("denied = %v (err %v), want %v", got, err, tt.denied)
			}
			if tt.denied && !sink.IsPermanent(err) {
				t.Fatalf("a denied address is not a permanent error: %v", err)
			}
		})
	}
}

func TestTLSConfig(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(srv.Close)
	ca := string(pemOf(srv))
	secrets := mapSecrets{"ns/ca": {"ca.crt": []byte(ca)}}

	tests := []struct {
		name    string
		spec    *v1alpha1.TLSConfig
		wantErr bool
		dialOK  bool
	}{
		{"no spec means system roots, which do not trust the test CA", nil, false, false},
		{"an inline CA bundle is trusted", &v1alpha1.TLSConfig{CABundle: ca}, false, true},
		{"a CA from a Secret is trusted", &v1alpha1.TLSConfig{CASecretRef: &v1alpha1.SecretKeyReference{Name: "ca", Key: "ca.crt"}}, false, true},
		{"a missing Secret key is an error", &v1alpha1.TLSConfig{CASecretRef: &v1alpha1.SecretKeyReference{Name: "ca", Key: "other"}}, true, false},
		{"a bundle without certificates is an error", &v1alpha1.TLSConfig{CABundle: "not pem"}, true, false},
		{"insecureSkipVerify trusts anything", &v1alpha1.TLSConfig{InsecureSkipVerify: true}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := egress.TLSConfig(context.Background(), tt.spec, "ns", secrets)
			if (err != nil) != tt.wantErr {
				t.Fatalf("TLSConfig error = %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				if !sink.IsPermanent(err) {
					t.Fatalf("a bad TLS spec is not a permanent error: %v", err)
				}
				return
			}
			resp, err := egress.Policy{AllowPrivate: true}.HTTPClient(cfg).Get(srv.URL)
			if resp != nil {
				_ = resp.Body.Close()
			}
			if (err == nil) != tt.dialOK {
				t.Fatalf("GET over TLS: %v, want success %v", err, tt.dialOK)
			}
		})
	}
}
