//go:build linux

package azureblob

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/exporter/exportertest"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// containerSAS returns a container SAS for containerName signed with the
// emulator's key, granting perms.
func (p *peer) containerSAS(t *testing.T, containerName string, perms sas.ContainerPermissions) string {
	t.Helper()
	key, err := container.NewSharedKeyCredential(testenv.AzuriteAccount, testenv.AzuriteKey)
	if err != nil {
		t.Fatal(err)
	}
	q, err := sas.BlobSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour),
		ContainerName: containerName, Permissions: perms.String()}.SignWithSharedKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return q.Encode()
}

func sasSecret(token string) backend.MapCredentials {
	return backend.MapCredentials{{Namespace: "team-a", Name: secretName}: {KeySASToken: []byte(token)}}
}

var allPerms = sas.ContainerPermissions{Read: true, Add: true, Create: true, Write: true, Delete: true, List: true}

func TestSASToken(t *testing.T) {
	p := startPeer(t)
	t.Run("a container SAS writes and reads back the projection", func(t *testing.T) {
		c := newContainerName()
		p.createContainer(t, c)
		spec := p.spec(c, "exports", "ndjson", "none")
		spec.Provisioning = &v1alpha1.Provisioning{Mode: v1alpha1.ProvisionExisting}
		s := p.newSink(t, spec, sasSecret("?"+p.containerSAS(t, c, allPerms)))
		want := objectstoretest.Pods(t, 2, 3)
		want.Envelope.Cluster = "conformance"
		objectstoretest.Write(t, s, want)
		r := objectstoretest.Reader{Get: p.getter(t, c), Prefix: "exports", Format: "ndjson", Compression: "none"}
		got, found, err := r.Read(context.Background(), "conformance", busv1.NamespacedName{Namespace: "team-a", Name: "web"})
		if err != nil || !found || got.Revision != 2 || len(got.Rows) != 3 {
			t.Fatalf("read back: revision %d, %d rows, found %t, %v; want revision 2 and 3 rows", got.Revision, len(got.Rows), found, err)
		}
	})
	t.Run("a SAS of another container is a permanent 403 that never shows the token", func(t *testing.T) {
		c := newContainerName()
		p.createContainer(t, c)
		token := p.containerSAS(t, "another", allPerms)
		s := p.newSink(t, p.spec(c, "", "json", "none"), sasSecret(token))
		err := s.(sink.Checker).Check(context.Background())
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), "HTTP 403") {
			t.Fatalf("check returned %v, want a permanent HTTP 403", err)
		}
		noSignature(t, err, token)
	})
	t.Run("a SAS without create permission cannot create a missing container", func(t *testing.T) {
		c := newContainerName()
		token := p.containerSAS(t, c, sas.ContainerPermissions{Read: true, List: true})
		err := p.newSink(t, p.spec(c, "", "json", "none"), sasSecret(token)).(sink.Checker).Check(context.Background())
		if !sink.IsPermanent(err) {
			t.Fatalf("check returned %v, want a permanent error", err)
		}
		noSignature(t, err, token)
	})
}

// noSignature fails when err's message holds token's signature.
func noSignature(t *testing.T, err error, token string) {
	t.Helper()
	_, sig, _ := strings.Cut(token, "sig=")
	sig, _, _ = strings.Cut(sig, "&")
	if sig == "" || strings.Contains(err.Error(), sig) {
		t.Fatalf("the error shows the SAS signature: %v", err)
	}
}

// An address the operator's egress policy refuses is a permanent error,
// and the refused request's URL is shown without its query (the SAS
// token). TestShouldRetry shows the SDK does not retry it.
func TestTheEgressPolicyRefusesTheEndpointWithoutShowingTheToken(t *testing.T) {
	p := startPeer(t)
	c := newContainerName()
	token := p.containerSAS(t, c, allPerms)
	s, err := Backend{}.New(context.Background(), sinkConfig(t, p.spec(c, "", "json", "none")), sasSecret(token))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Write(context.Background(), objectstoretest.Pods(t, 1, 1))
	if !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
		t.Fatalf("write returned %v, want a permanent error wrapping egress.ErrDenied", err)
	}
	noSignature(t, err, token)
}

func TestShouldRetry(t *testing.T) {
	denied := egress.Policy{}.Check(netip.MustParseAddr("127.0.0.1"))
	tests := []struct {
		name string
		resp *http.Response
		err  error
		want bool
	}{
		{"an egress refusal is not retried", nil, &url.Error{Op: "Put", URL: "http://127.0.0.1/x", Err: denied}, false},
		{"a network error is retried", nil, &url.Error{Op: "Put", URL: "http://127.0.0.1/x", Err: errors.New("connection reset")}, true},
		{"a busy server is retried", &http.Response{StatusCode: http.StatusServiceUnavailable}, nil, true},
		{"throttling is retried", &http.Response{StatusCode: http.StatusTooManyRequests}, nil, true},
		{"a refused signature is not retried", &http.Response{StatusCode: http.StatusForbidden}, nil, false},
		{"a failed condition is not retried", &http.Response{StatusCode: http.StatusPreconditionFailed}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shouldRetry(tt.resp, tt.err); got != tt.want {
				t.Fatalf("shouldRetry = %t, want %t", got, tt.want)
			}
		})
	}
}

func TestSecretKeys(t *testing.T) {
	ep := endpoint{serviceURL: "https://acme.blob.core.windows.net", account: "acme", container: "lake"}
	tests := []struct {
		name string
		auth v1alpha1.AzureBlobAuth
		data map[string][]byte
		want string
	}{
		{"a Secret with neither key is refused naming both", "", map[string][]byte{"token": []byte("x")},
			`has neither key "accountKey" nor key "sasToken"`},
		{"sas without the key sasToken is refused naming it", v1alpha1.AzureBlobSAS,
			map[string][]byte{KeyAccountKey: []byte(testenv.AzuriteKey)}, `has no key "sasToken"`},
		{"sharedKey without the key accountKey is refused naming it", v1alpha1.AzureBlobSharedKey,
			map[string][]byte{KeySASToken: []byte("sig=x")}, `has no key "accountKey"`},
		{"an account key that is not base64 is refused without showing it", "",
			map[string][]byte{KeyAccountKey: []byte("not*base64*secret")}, `key "accountKey" is not a base64 account key`},
		{"an accountName other than the endpoint's is refused", "",
			map[string][]byte{KeyAccountKey: []byte(testenv.AzuriteKey), KeyAccountName: []byte("other")},
			`names account "other", the endpoint account "acme"`},
		{"a sasToken without a signature is refused without showing it", "",
			map[string][]byte{KeySASToken: []byte("sv=2025-05-05&secret-ish")}, `key "sasToken" is not a SAS token`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotAzureBlob, Endpoint: "azblob://acme/lake",
				SinkCommon: v1alpha1.SinkCommon{SecretRef: &v1alpha1.SecretReference{Name: secretName}}}
			if tt.auth != "" {
				spec.AzureBlob = &v1alpha1.AzureBlobSink{Auth: tt.auth}
			}
			creds := backend.MapCredentials{{Namespace: "team-a", Name: secretName}: tt.data}
			_, err := resolveCredential(context.Background(), &spec, "team-a", ep, creds)
			if !sink.IsPermanent(err) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "team-a/"+secretName) {
				t.Fatalf("got %v, want a permanent error naming the Secret and saying %q", err, tt.want)
			}
			for _, k := range []string{KeyAccountKey, KeySASToken} {
				if v := tt.data[k]; len(v) > 0 && strings.Contains(err.Error(), string(v)) {
					t.Fatalf("the error shows a Secret value: %v", err)
				}
			}
		})
	}
}

// A sink without secretRef would run as the exporter's workload identity:
// only where the operator allows it.
func TestWorkloadIdentityIsUsedOnlyWhereTheOperatorAllowsIt(t *testing.T) {
	token, opened := testenv.Tripwire(t, "not read")
	t.Setenv("AZURE_CLIENT_ID", "00000000-0000-0000-0000-000000000001")
	t.Setenv("AZURE_TENANT_ID", "00000000-0000-0000-0000-000000000002")
	t.Setenv("AZURE_FEDERATED_TOKEN_FILE", token)
	spec := v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotAzureBlob, Endpoint: "azblob://acme/lake"}
	cfg := sinkConfig(t, spec)
	exportertest.CheckAmbientRefused(t, cfg, "team-a", func(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) error {
		_, err := Backend{}.New(ctx, cfg, creds)
		return err
	}, opened)
	allowed, err := backend.CredentialPolicy{AmbientNamespaces: []string{"team-a"}}.For(cfg, backend.MapCredentials{})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("a policy allowing the namespace uses it", func(t *testing.T) {
		s, err := Backend{}.New(context.Background(), cfg, allowed)
		if err != nil {
			t.Fatalf("new with ambient credentials allowed: %v", err)
		}
		_ = s.Close(context.Background())
	})
	t.Run("an exporter without the identity's settings fails permanently naming them", func(t *testing.T) {
		t.Setenv("AZURE_FEDERATED_TOKEN_FILE", "")
		_, err := Backend{}.New(context.Background(), cfg, allowed)
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), "AZURE_FEDERATED_TOKEN_FILE") {
			t.Fatalf("new returned %v, want a permanent error naming the settings", err)
		}
	})
	t.Run("an http endpoint is refused: the identity's tokens go over TLS only", func(t *testing.T) {
		spec := spec
		spec.Endpoint = "http://127.0.0.1:10000/devstoreaccount1/lake"
		_, err := Backend{}.New(context.Background(), sinkConfig(t, spec), allowed)
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), "needs an https:// endpoint") {
			t.Fatalf("new returned %v, want a permanent error asking for https", err)
		}
	})
	t.Run("sharedKey without secretRef is refused before any identity is used", func(t *testing.T) {
		spec := spec
		spec.AzureBlob = &v1alpha1.AzureBlobSink{Auth: v1alpha1.AzureBlobSharedKey}
		_, err := Backend{}.New(context.Background(), sinkConfig(t, spec), allowed)
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), "needs secretRef") {
			t.Fatalf("new returned %v, want a permanent error saying it needs secretRef", err)
		}
	})
}

// The Secret of another namespace is refused by the runtime's credential
// policy before the backend reads it.
func TestACrossNamespaceSecretRefReadsNothing(t *testing.T) {
	spec := v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotAzureBlob, Endpoint: "azblob://acme/lake",
		SinkCommon: v1alpha1.SinkCommon{SecretRef: &v1alpha1.SecretReference{Name: secretName, Namespace: "team-b"}}}
	cfg := sinkConfig(t, spec)
	reads := 0
	creds := readCounter{MapCredentials: backend.MapCredentials{{Namespace: "team-b", Name: secretName}: {
		KeyAccountKey: []byte(testenv.AzuriteKey)}}, n: &reads}
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
