package azureblob

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

func TestDocExamples(t *testing.T) {
	p := startPeer(t)
	creds := backend.MapCredentials{}
	want := map[string][]string{
		"inventory-lake": {"kollect/inventory/part_cluster=prod-eu-1/part_namespace=team-a/part_inventory=web/_latest.json",
			"kollect/inventory/part_cluster=prod-eu-1/part_namespace=team-a/part_inventory=web/revision=1.parquet"},
		"inventory-feed": {".kollect/state/cluster=prod-eu-1/ns=team-a/name=web.json",
			"prod-eu-1/team-a/web.ndjson.zst"},
		"inventory-archive": {".kollect/state/cluster=prod-eu-1/ns=team-a/name=web.json",
			"inventory/team-a/web.json"},
	}
	objectstoretest.RunDocExamples(t, "docs/sinks/azureblob.md", want, func(t *testing.T, o objectstoretest.DocExample) {
		data := map[string][]byte{}
		for k, v := range o.StringData {
			data[k] = []byte(v)
		}
		creds[busv1.NamespacedName{Namespace: "team-a", Name: o.Metadata.Name}] = data
	}, func(t *testing.T, o objectstoretest.DocExample) objectstoretest.DocSink {
		ep, err := parseEndpoint(o.Spec.Endpoint)
		if err != nil {
			t.Fatal(err)
		}
		checkDocCredential(t, &o.Spec, ep, creds)
		if o.Spec.Provisioning != nil && o.Spec.Provisioning.Mode == v1alpha1.ProvisionExisting {
			p.createContainer(t, ep.container)
		}
		// The emulator's address and account key, the example's
		// container, prefix and everything else.
		o.Spec.Endpoint = p.srv.AccountURL() + "/" + ep.container + "/" + ep.prefix
		o.Spec.SecretRef, o.Spec.AzureBlob = &v1alpha1.SecretReference{Name: secretName}, nil
		return objectstoretest.DocSink{Sink: p.newSink(t, o.Spec, keySecret()),
			List: func(t *testing.T) []string { return p.list(t, ep.container) }}
	})
}

// checkDocCredential fails unless the backend accepts the example's
// credential: its Secret, or the workload identity where the operator
// allows it (with the settings the AKS webhook injects).
func checkDocCredential(t *testing.T, spec *v1alpha1.KollectSnapshotSinkSpec, ep endpoint, creds backend.MapCredentials) {
	t.Helper()
	var c backend.Credentials = creds
	if spec.SecretRef == nil {
		token := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(token, []byte("federated-token"), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("AZURE_CLIENT_ID", "00000000-0000-0000-0000-000000000001")
		t.Setenv("AZURE_TENANT_ID", "00000000-0000-0000-0000-000000000002")
		t.Setenv("AZURE_FEDERATED_TOKEN_FILE", token)
		var err error
		c, err = backend.CredentialPolicy{AmbientNamespaces: []string{"team-a"}}.For(sinkConfig(t, *spec), creds)
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := resolveCredential(context.Background(), spec, "team-a", ep, c)
	if err != nil {
		t.Fatalf("the example's credential is refused: %v", err)
	}
	wantAuth := v1alpha1.AzureBlobSharedKey
	if spec.AzureBlob != nil {
		wantAuth = spec.AzureBlob.Auth
	}
	if gotAuth := got.auth(); gotAuth != wantAuth {
		t.Fatalf("the example authorises with %s, want %s", gotAuth, wantAuth)
	}
}
