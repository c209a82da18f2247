//go:build linux

package gcs

import (
	"context"
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
	"kollect.dev/kollect/pkg/googlecreds/googlecredstest"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// gsSpec is a gs:// sink spec, with secretRef gcs when secret.
func gsSpec(secret bool) v1alpha1.KollectSnapshotSinkSpec {
	spec := v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGCS, Endpoint: "gs://bucket/prefix?project=p1"}
	if secret {
		spec.SecretRef = &v1alpha1.SecretReference{Name: "gcs"}
	}
	return spec
}

func credentialsSecret(js []byte) backend.MapCredentials {
	return backend.MapCredentials{{Namespace: "team-a", Name: "gcs"}: {KeyCredentials: js}}
}

// wantDenied fails unless err is a permanent CredentialsDenied error
// saying msg.
func wantDenied(t *testing.T, err error, msg string) {
	t.Helper()
	if v1alpha1.ReasonOf(err) != v1alpha1.ReasonCredentialsDenied || !sink.IsPermanent(err) || !strings.Contains(err.Error(), msg) {
		t.Fatalf("new returned %v, want a permanent CredentialsDenied error saying %q", err, msg)
	}
}

// The review's C3 probe against the backend: the sink is refused before
// the file is opened or the token URL called, on New and so on every
// connection test and write.
func TestExternalAccountCredentialsAreRefusedBeforeAnyFileOrURLIsUsed(t *testing.T) {
	file, opened := testenv.Tripwire(t, "EXPORTER-SA-TOKEN-CANARY")
	ts := googlecredstest.StartTokenServer(t, http.StatusBadRequest, `{"error":"no"}`)
	_, err := Backend{Egress: egress.Policy{AllowPrivate: true}}.New(context.Background(), sinkConfig(t, gsSpec(true)),
		credentialsSecret(googlecredstest.ExternalAccount(t, ts.URL, file)))
	wantDenied(t, err, `unsupported credential type "external_account"`)
	if opened() || len(ts.Requests()) != 0 {
		t.Fatalf("the file was opened (%t) or the token URL called (%d requests)", opened(), len(ts.Requests()))
	}
}

// The review's M1 probe against the backend: a service account key whose
// token_uri is a loopback server is refused and the server never called.
func TestAServiceAccountKeyWithAnotherTokenEndpointIsRefused(t *testing.T) {
	ts := googlecredstest.StartTokenServer(t, http.StatusBadRequest, `{"error":"internal-service-body"}`)
	_, err := Backend{Egress: egress.Policy{AllowPrivate: true}}.New(context.Background(), sinkConfig(t, gsSpec(true)),
		credentialsSecret(googlecredstest.ServiceAccount(t, ts.URL+"/token")))
	wantDenied(t, err, "token_uri must be https://oauth2.googleapis.com/token")
	if n := len(ts.Requests()); n != 0 {
		t.Fatalf("the token endpoint received %d requests", n)
	}
}

// A gs:// sink without secretRef would run as the exporter (Application
// Default Credentials): only where the operator allows it, and the
// credentials are not even looked up otherwise.
func TestAmbientCredentialsAreUsedOnlyWhereTheOperatorAllowsThem(t *testing.T) {
	adc, opened := testenv.Tripwire(t, "not read")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", adc)
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	cfg := sinkConfig(t, gsSpec(false))
	exportertest.CheckAmbientRefused(t, cfg, "team-a", func(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) error {
		_, err := Backend{}.New(ctx, cfg, creds)
		return err
	}, opened)
	t.Run("a policy allowing the namespace uses them", func(t *testing.T) {
		key := filepath.Join(t.TempDir(), "adc.json")
		if err := os.WriteFile(key, googlecredstest.ServiceAccount(t, ""), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", key)
		creds, err := backend.CredentialPolicy{AmbientNamespaces: []string{"team-a"}}.For(cfg, backend.MapCredentials{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := Backend{}.New(context.Background(), cfg, creds)
		if err != nil {
			t.Fatalf("new with ambient credentials allowed: %v", err)
		}
		_ = s.Close(context.Background())
	})
	t.Run("an http endpoint without secretRef needs no leave: it is used without authentication", func(t *testing.T) {
		spec := gsSpec(false)
		spec.Endpoint = "http://127.0.0.1:1/bucket"
		s, err := Backend{}.New(context.Background(), sinkConfig(t, spec), backend.MapCredentials{})
		if err != nil {
			t.Fatalf("new: %v", err)
		}
		_ = s.Close(context.Background())
		if opened() {
			t.Fatal("the Application Default Credentials were read for an unauthenticated endpoint")
		}
	})
}

// The Secret of another namespace is refused by the runtime's credential
// policy before the backend reads it, whatever the backend resolves.
func TestACrossNamespaceSecretRefReadsNothing(t *testing.T) {
	spec := gsSpec(true)
	spec.SecretRef.Namespace = "team-b"
	cfg := sinkConfig(t, spec)
	reads := 0
	creds := readCounter{MapCredentials: backend.MapCredentials{{Namespace: "team-b", Name: "gcs"}: {
		KeyCredentials: googlecredstest.ServiceAccount(t, "")}}, n: &reads}
	_, err := backend.CredentialPolicy{}.For(cfg, creds)
	if v1alpha1.ReasonOf(err) != v1alpha1.ReasonSecretRefDenied || reads != 0 {
		t.Fatalf("For: %v after %d reads, want SecretRefDenied and no read", err, reads)
	}
	allowed, err := backend.CredentialPolicy{AllowCrossNamespaceSecretRefs: true}.For(cfg, creds)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Backend{}.New(context.Background(), cfg, allowed)
	if err != nil || reads != 1 {
		t.Fatalf("new with cross-namespace references allowed: %v after %d reads, want one read", err, reads)
	}
	_ = s.Close(context.Background())
}

// readCounter counts Secret reads.
type readCounter struct {
	backend.MapCredentials
	n *int
}

func (r readCounter) Secret(ctx context.Context, ns, name string) (map[string][]byte, error) {
	*r.n++
	return r.MapCredentials.Secret(ctx, ns, name)
}
