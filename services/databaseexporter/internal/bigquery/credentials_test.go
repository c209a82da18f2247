//go:build linux

package bigquery

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/exporter/exportertest"
	"kollect.dev/kollect/pkg/googlecreds"
	"kollect.dev/kollect/pkg/googlecreds/googlecredstest"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// keyedConfig is a bigquery sink reading secretRef bq, or none when !secret.
func keyedConfig(secret bool) busv1.SinkConfig {
	spec := `{"type":"bigquery","bigquery":{"project":"p1","dataset":"d","table":"t"}}`
	if secret {
		spec = `{"type":"bigquery","secretRef":{"name":"bq"},"bigquery":{"project":"p1","dataset":"d","table":"t"}}`
	}
	return busv1.SinkConfig{Type: "bigquery", Namespace: sinkNS, Name: "rows", Spec: json.RawMessage(spec)}
}

func keySecret(js []byte) backend.MapCredentials {
	return backend.MapCredentials{{Namespace: sinkNS, Name: "bq"}: {CredentialsKey: js}}
}

// wantDenied fails unless err is a permanent CredentialsDenied error
// saying msg.
func wantDenied(t *testing.T, err error, msg string) {
	t.Helper()
	if v1alpha1.ReasonOf(err) != v1alpha1.ReasonCredentialsDenied || !sink.IsPermanent(err) || !strings.Contains(err.Error(), msg) {
		t.Fatalf("got %v, want a permanent CredentialsDenied error saying %q", err, msg)
	}
}

func TestOnlyServiceAccountKeysNamingGooglesTokenEndpointAreAccepted(t *testing.T) {
	file, opened := testenv.Tripwire(t, "EXPORTER-SA-TOKEN-CANARY")
	ts := googlecredstest.StartTokenServer(t, http.StatusBadRequest, `{"error":"internal-service-body"}`)
	b := Backend{Egress: egress.Policy{AllowPrivate: true}}
	for _, tc := range []struct {
		name, key, want string
	}{
		{"external_account reading a file for a chosen token URL", string(googlecredstest.ExternalAccount(t, ts.URL, file)),
			`unsupported credential type "external_account"`},
		{"authorized_user", `{"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r"}`,
			`unsupported credential type "authorized_user"`},
		{"a service account key whose token_uri is a loopback server (M1)", string(googlecredstest.ServiceAccount(t, ts.URL+"/token")),
			"token_uri must be " + googlecreds.GoogleTokenURL},
	} {
		t.Run(tc.name+" is refused before anything is contacted", func(t *testing.T) {
			_, err := b.New(context.Background(), keyedConfig(true), keySecret([]byte(tc.key)))
			wantDenied(t, err, tc.want)
			if opened() || len(ts.Requests()) != 0 {
				t.Fatalf("the file was opened (%t) or the token server called (%d requests)", opened(), len(ts.Requests()))
			}
		})
	}
}

func TestATokenEndpointsAnswerIsNotQuoted(t *testing.T) {
	ts := googlecredstest.StartTokenServer(t, http.StatusBadRequest, `{"error":"invalid_grant","error_description":"CANARY-BODY"}`)
	b := Backend{Egress: egress.Policy{AllowPrivate: true}, Endpoint: "http://127.0.0.1:9/", TokenURL: ts.URL}
	s, err := b.New(context.Background(), keyedConfig(true), keySecret(googlecredstest.ServiceAccount(t, ts.URL)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	err = s.(*Sink).Check(context.Background())
	var te *googlecreds.TokenError
	if !errors.As(err, &te) || te.Status != http.StatusBadRequest || !sink.IsPermanent(err) || strings.Contains(err.Error(), "CANARY") {
		t.Fatalf("check returned %v, want a permanent TokenError 400 that does not quote the answer", err)
	}
	if len(ts.Requests()) == 0 {
		t.Fatal("the token request did not go through the backend's token endpoint")
	}
}

func TestAmbientCredentialsAreUsedOnlyWhereTheOperatorAllowsThem(t *testing.T) {
	adc, opened := testenv.Tripwire(t, "not read")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", adc)
	cfg := keyedConfig(false)
	exportertest.CheckAmbientRefused(t, cfg, sinkNS, func(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) error {
		_, err := Backend{}.New(ctx, cfg, creds)
		return err
	}, opened)
	t.Run("an endpoint override is used without authentication and without them", func(t *testing.T) {
		s, err := Backend{Endpoint: "http://127.0.0.1:9/"}.New(context.Background(), cfg, backend.MapCredentials{})
		if err != nil {
			t.Fatalf("new: %v", err)
		}
		_ = s.Close(context.Background())
		if opened() {
			t.Fatal("the Application Default Credentials were read")
		}
	})
	t.Run("an endpoint override without a project does not detect it from them", func(t *testing.T) {
		noProject := cfg
		noProject.Spec = json.RawMessage(`{"type":"bigquery","bigquery":{"dataset":"d","table":"t"}}`)
		_, err := Backend{Endpoint: "http://127.0.0.1:9/"}.New(context.Background(), noProject, backend.MapCredentials{})
		wantDenied(t, err, "spec.bigquery.project")
		if opened() {
			t.Fatal("the Application Default Credentials were read")
		}
	})
	t.Run("a policy allowing every namespace uses them", func(t *testing.T) {
		key := filepath.Join(t.TempDir(), "adc.json")
		if err := os.WriteFile(key, googlecredstest.ServiceAccount(t, ""), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", key)
		creds, err := backend.CredentialPolicy{AmbientNamespaces: []string{backend.AllNamespaces}}.For(cfg, backend.MapCredentials{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := Backend{}.New(context.Background(), cfg, creds)
		if err != nil {
			t.Fatalf("new with ambient credentials allowed: %v", err)
		}
		_ = s.Close(context.Background())
	})
}
