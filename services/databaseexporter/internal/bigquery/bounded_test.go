package bigquery

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAnAnswerOverTheBoundFailsItsRead(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 1000
		if r.URL.Query().Has("more") {
			n++
		}
		_, _ = w.Write(make([]byte, n))
	}))
	defer srv.Close()
	c := &http.Client{Transport: boundedBodies{next: http.DefaultTransport, max: 1000}}
	get := func(url string) (int, error) {
		resp, err := c.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		b, err := io.ReadAll(resp.Body)
		return len(b), err
	}
	if n, err := get(srv.URL); err != nil || n != 1000 {
		t.Fatalf("an answer of exactly the bound: read %d bytes, %v", n, err)
	}
	if n, err := get(srv.URL + "?more=y"); err == nil || !strings.Contains(err.Error(), "over 1000 bytes") {
		t.Fatalf("an answer of one byte over the bound: read %d bytes, %v, want the bound's error", n, err)
	}
}
