package azureblob

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// docObject is one object of a yaml block of a doc page.
type docObject = sinktest.DocObject[v1alpha1.KollectSnapshotSinkSpec]

func TestDocExamples(t *testing.T) {
	p := startPeer(t)
	creds := backend.MapCredentials{}
	var sinks []docObject
	for _, o := range sinktest.DocObjects[v1alpha1.KollectSnapshotSinkSpec](t, "docs/sinks/azureblob.md", "KollectSnapshotSink") {
		switch o.Kind {
		case "Secret":
			data := map[string][]byte{}
			for k, v := range o.StringData {
				data[k] = []byte(v)
			}
			creds[busv1.NamespacedName{Namespace: "team-a", Name: o.Metadata.Name}] = data
		case "KollectSnapshotSink":
			sinks = append(sinks, o)
		}
	}
	want := map[string][]string{
		"inventory-lake": {"kollect/inventory/part_cluster=prod-eu-1/part_namespace=team-a/part_inventory=web/_latest.json",
			"kollect/inventory/part_cluster=prod-eu-1/part_namespace=team-a/part_inventory=web/revision=1.parquet"},
		"inventory-feed": {".kollect/state/cluster=prod-eu-1/ns=team-a/name=web.json",
			"prod-eu-1/team-a/web.ndjson.zst"},
		"inventory-archive": {".kollect/state/cluster=prod-eu-1/ns=team-a/name=web.json",
			"inventory/team-a/web.json"},
	}
	if len(sinks) != len(want) {
		t.Fatalf("the page has %d sinks, the test knows %d", len(sinks), len(want))
	}
	for _, o := range sinks {
		t.Run("the example "+o.Metadata.Name+" writes to the emulator", func(t *testing.T) {
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
			s := p.newSink(t, o.Spec, keySecret())
			if err := s.(sink.Checker).Check(context.Background()); err != nil {
				t.Fatalf("check: %v", err)
			}
			one := objectstoretest.Pods(t, 1, 1)
			one.Envelope = one.Envelope.Stamp(o.Spec.Cluster, time.Now())
			objectstoretest.Write(t, s, one)
			if d := cmp.Diff(want[o.Metadata.Name], p.list(t, ep.container)); d != "" {
				t.Errorf("objects (-want +got):\n%s", d)
			}
		})
	}
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
