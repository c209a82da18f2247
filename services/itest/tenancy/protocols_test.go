package tenancy

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/binary"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
)

// The PostgreSQL protocol codes of the requests a client may send before
// its startup message.
const (
	pgSSLRequest    = 80877103
	pgGSSENCRequest = 80877104
)

// pgGreet speaks the server side of a PostgreSQL connection up to asking
// for a cleartext password, as a server an attacker runs would: it refuses
// TLS, reads the startup message (which names the user) and sends
// AuthenticationCleartextPassword, so that a client holding a password
// sends it next.
func pgGreet(c net.Conn, in io.Reader) error {
	for {
		var hdr [8]byte
		if _, err := io.ReadFull(in, hdr[:]); err != nil {
			return err
		}
		n, code := binary.BigEndian.Uint32(hdr[:4]), binary.BigEndian.Uint32(hdr[4:])
		if n < 8 || n > 1<<16 {
			return fmt.Errorf("postgres message length %d", n)
		}
		if _, err := io.CopyN(io.Discard, in, int64(n-8)); err != nil {
			return err
		}
		if code != pgSSLRequest && code != pgGSSENCRequest {
			break
		}
		if _, err := c.Write([]byte{'N'}); err != nil {
			return err
		}
	}
	_, err := c.Write([]byte{'R', 0, 0, 0, 8, 0, 0, 0, 3})
	return err
}

// natsGreet sends the INFO line a NATS server opens with, asking for
// authentication, so that a client sends CONNECT with its credentials.
func natsGreet(c net.Conn, _ io.Reader) error {
	_, err := io.WriteString(c, `INFO {"server_id":"recorder","server_name":"recorder","version":"2.10.0","proto":1,`+
		`"headers":true,"max_payload":1048576,"auth_required":true}`+"\r\n")
	return err
}

// tokenResponse is the token endpoint's answer: an OAuth error whose body
// holds a canary, since a token endpoint's answer must never be quoted into
// a condition, an event or a log line.
var tokenResponse = canary("TOKEN-RESPONSE")

// tokens records what is posted to token endpoints (the ambient GCS
// identity's and external_account's); started before the system.
var tokens *recorder

// reserveTokenRecorder starts the token endpoint recorder and returns its
// base URL.
func reserveTokenRecorder() (string, error) {
	r, err := startHTTPRecorder("token-endpoint", "127.0.0.1", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"error":"invalid_grant","error_description":%q}`, tokenResponse)
	})
	if err != nil {
		return "", err
	}
	tokens = r
	return "http://" + r.addr, nil
}

// serviceAccountKey returns a Google service_account credentials JSON with
// a fresh RSA key for email, fetching its tokens from tokenURI.
func serviceAccountKey(email, tokenURI string) ([]byte, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generate key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode key: %w", err)
	}
	return json.Marshal(map[string]string{
		"type": "service_account", "project_id": "tenancy", "private_key_id": "k1", "client_id": "1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": email, "token_uri": tokenURI,
	})
}

// externalAccount returns GCS credentials of type external_account that
// read the local file canary and post it to tokenURL.
func externalAccount(tokenURL, file string) ([]byte, error) {
	return json.Marshal(map[string]any{
		"type":               "external_account",
		"audience":           "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/x",
		"subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
		"token_url":          tokenURL,
		"credential_source":  map[string]string{"file": file},
	})
}
