//go:build linux

package azureblob

import (
	"context"
	"strings"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// TestWorkloadIdentityGoesOnlyToAzureStorageHosts is F11 of SECURITY-3:
// the workload identity token is a bearer token every storage account the
// identity reaches accepts, so a sink of an allowed namespace sends it only
// to an Azure storage host or one the operator lists; a tenant-chosen host
// is refused before the identity's token file is read.
func TestWorkloadIdentityGoesOnlyToAzureStorageHosts(t *testing.T) {
	token, opened := testenv.Tripwire(t, "not read")
	t.Setenv("AZURE_CLIENT_ID", "00000000-0000-0000-0000-000000000001")
	t.Setenv("AZURE_TENANT_ID", "00000000-0000-0000-0000-000000000002")
	t.Setenv("AZURE_FEDERATED_TOKEN_FILE", token)
	policy := backend.CredentialPolicy{AmbientNamespaces: []string{"team-a"}, AmbientHosts: []string{"azurite.storage.svc:10443", "lake.privatelink.example"}}
	tests := []struct {
		name, endpoint string
		allowed        bool
	}{
		{"the public cloud's azblob form", "azblob://acme/lake", true},
		{"a public cloud host", "https://acme.blob.core.windows.net/lake/p", true},
		{"a US Government cloud host", "https://acme.blob.core.usgovcloudapi.net/lake", true},
		{"a China cloud host", "https://acme.blob.core.chinacloudapi.cn/lake", true},
		{"an emulator the operator lists, path-style", "https://azurite.storage.svc:10443/devstoreaccount1/lake", true},
		{"a private endpoint the operator lists", "https://lake.privatelink.example/acme/lake", true},
		{"a tenant's host shaped like a blob host", "https://acct1.blob.attacker.example/lake", false},
		{"a tenant's host under an Azure name", "https://acme.blob.core.windows.net.attacker.example/lake", false},
		{"a tenant's host, path-style", "https://attacker.example/acct1/lake", false},
		{"an Azure host on another port", "https://acme.blob.core.windows.net:8443/lake", false},
		{"a listed host on another port", "https://azurite.storage.svc:9999/devstoreaccount1/lake", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := sinkConfig(t, v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotAzureBlob, Endpoint: tt.endpoint})
			creds, err := policy.For(cfg, backend.MapCredentials{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := Backend{}.New(context.Background(), cfg, creds)
			if tt.allowed {
				if err != nil {
					t.Fatalf("new: %v, want the workload identity", err)
				}
				_ = s.Close(context.Background())
				return
			}
			if !sink.IsPermanent(err) || v1alpha1.ReasonOf(err) != v1alpha1.ReasonCredentialsDenied ||
				!strings.Contains(err.Error(), "is not an Azure storage host") {
				t.Fatalf("new returned %v, want a permanent CredentialsDenied saying the host is not an Azure storage host", err)
			}
		})
	}
	if opened() {
		t.Error("the identity's token file was read for a refused endpoint")
	}
}
