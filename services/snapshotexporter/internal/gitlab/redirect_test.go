package gitlab

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"kollect.dev/kollect/pkg/sink"
)

func TestTheTokenNeverFollowsARedirectToAnotherOrigin(t *testing.T) {
	var elsewhere, tokensElsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		if r.Header.Get("PRIVATE-TOKEN") != "" {
			tokensElsewhere.Add(1)
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(other.Close)
	gl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v4/moved":
			http.Redirect(w, r, "/api/v4/here", http.StatusTemporaryRedirect)
		case "/api/v4/here":
			if r.Header.Get("PRIVATE-TOKEN") != token {
				http.Error(w, `{"message":"401 Unauthorized"}`, http.StatusUnauthorized)
				return
			}
			_, _ = w.Write([]byte(`{}`))
		case "/api/v4/away":
			http.Redirect(w, r, other.URL+"/api/v4/here", http.StatusTemporaryRedirect)
		}
	}))
	t.Cleanup(gl.Close)
	c := &client{http: allowLoopback.HTTPClient(nil), api: gl.URL + "/api/v4", project: "team/inventory", token: token}

	tests := []struct {
		name, path string
		followed   bool
	}{
		{"a redirect within the endpoint's origin is followed with the token", "/moved", true},
		{"a redirect to another host and port is refused", "/away", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out map[string]any
			_, err := c.do(context.Background(), request{method: http.MethodGet, path: tt.path}, &out)
			if tt.followed {
				if err != nil {
					t.Fatalf("GET %s: %v", tt.path, err)
				}
				return
			}
			if err == nil || !sink.IsPermanent(err) {
				t.Fatalf("GET %s: %v, want a permanent refusal of the redirect", tt.path, err)
			}
		})
	}
	if n, tok := elsewhere.Load(), tokensElsewhere.Load(); n != 0 || tok != 0 {
		t.Fatalf("the other origin received %d requests, %d with the token", n, tok)
	}
}
