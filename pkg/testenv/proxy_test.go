package testenv_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"kollect.dev/kollect/pkg/testenv"
)

func TestProxyGoesDownAndComesBack(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }))
	t.Cleanup(srv.Close)
	p := testenv.StartProxy(t, srv.Listener.Addr().String())
	get := func() error {
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := c.Get("http://" + p.Addr)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && string(b) != "ok" {
			t.Fatalf("proxied body %q", b)
		}
		return err
	}
	if err := get(); err != nil {
		t.Fatalf("through the proxy: %v", err)
	}
	p.Down()
	if _, err := net.Dial("tcp", p.Addr); err == nil {
		t.Fatal("the proxy accepted a connection while down")
	}
	if err := p.Up(); err != nil {
		t.Fatal(err)
	}
	if err := get(); err != nil {
		t.Fatalf("after Up: %v", err)
	}
}
