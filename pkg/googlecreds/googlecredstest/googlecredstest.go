package googlecredstest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TokenServer is an httptest token endpoint that records the bodies it
// receives and answers every request with one status and body.
type TokenServer struct {
	*httptest.Server
	mu       sync.Mutex
	received []string
}

// StartTokenServer starts a TokenServer answering status with body, closed
// when the test ends.
func StartTokenServer(t testing.TB, status int, body string) *TokenServer {
	t.Helper()
	ts := &TokenServer{}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		ts.mu.Lock()
		ts.received = append(ts.received, string(b))
		ts.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// Requests returns the bodies received so far.
func (ts *TokenServer) Requests() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.received...)
}

// ServiceAccount returns a well-formed service account key of project
// kollect-test naming tokenURI ("" for none).
func ServiceAccount(t testing.TB, tokenURI string) []byte {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{"type": "service_account", "project_id": "kollect-test", "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "kollect@kollect-test.iam.gserviceaccount.com", "client_id": "1"}
	if tokenURI != "" {
		m["token_uri"] = tokenURI
	}
	js, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// ExternalAccount returns the review's C3 probe: an external_account
// configuration whose subject token is the local file and whose token URL
// is tokenURL.
func ExternalAccount(t testing.TB, tokenURL, file string) []byte {
	t.Helper()
	js, err := json.Marshal(map[string]any{"type": "external_account", //nolint:gosec // G101: a probe configuration without any credential
		"audience":           "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/x",
		"subject_token_type": "urn:ietf:params:oauth:token-type:jwt", "token_url": tokenURL,
		"credential_source": map[string]string{"file": file}})
	if err != nil {
		t.Fatal(err)
	}
	return js
}
