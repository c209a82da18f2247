package egress_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync/atomic"
	"testing"

	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
)

// countingServer serves on addr and counts the requests it receives.
func countingServer(t *testing.T, addr string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen on %s: %v", addr, err)
	}
	hits := &atomic.Int64{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("inside"))
	}))
	_ = srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, hits
}

func TestRedirectsToRefusedAddressesAreRefusedAtDialTime(t *testing.T) {
	inside, hits := countingServer(t, "127.0.0.2:0")
	tests := []struct {
		name   string
		policy egress.Policy
		target string
	}{
		{"a redirect to cloud metadata is refused under the in-cluster opt-in",
			egress.Policy{AllowPrivate: true}, "http://169.254.169.254/latest/meta-data/"},
		{"a redirect to a denied network is refused under every opt-in",
			egress.Policy{AllowPrivate: true, AllowLinkLocal: true, Deny: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}, inside.URL},
		{"a redirect to 0.0.0.0 is refused under every opt-in",
			egress.Policy{AllowPrivate: true, AllowLinkLocal: true}, "http://0.0.0.0:1/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outside := httptest.NewServer(http.RedirectHandler(tt.target, http.StatusFound))
			t.Cleanup(outside.Close)
			resp, err := tt.policy.HTTPClient(nil).Get(outside.URL)
			if resp != nil {
				_ = resp.Body.Close()
			}
			if !errors.Is(err, egress.ErrDenied) || !sink.IsPermanent(err) {
				t.Fatalf("GET through a redirect to %s: %v, want a permanent ErrDenied", tt.target, err)
			}
			if n := hits.Load(); n != 0 {
				t.Fatalf("the refused address received %d requests", n)
			}
		})
	}
	// The same redirect without the deny list reaches the server, so the
	// zero count above is the policy's doing.
	outside := httptest.NewServer(http.RedirectHandler(inside.URL, http.StatusFound))
	t.Cleanup(outside.Close)
	resp, err := egress.Policy{AllowPrivate: true}.HTTPClient(nil).Get(outside.URL)
	if err != nil {
		t.Fatalf("GET through a redirect to an admitted address: %v", err)
	}
	_ = resp.Body.Close()
	if n := hits.Load(); n != 1 {
		t.Fatalf("the admitted address received %d requests, want 1", n)
	}
}
