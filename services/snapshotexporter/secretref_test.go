package snapshotexporter_test

import (
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter/exportertest"
	"kollect.dev/kollect/pkg/googlecreds/googlecredstest"
	"kollect.dev/kollect/services/snapshotexporter"
)

// Every snapshot backend (git, gitlab, s3, gcs, azureblob) reads the Secret
// of another namespace only when the operator allows cross-namespace
// references, and then only that one.
func TestEverySnapshotBackendReadsOnlyTheSecretsThePolicyAllows(t *testing.T) {
	exportertest.CheckSecretRefNamespaces(t, busv1.FamilySnapshot, snapshotexporter.Backends(snapshotexporter.DefaultConfig()),
		map[string]map[string]any{
			"git":       {"endpoint": "https://127.0.0.1:1/inv.git", "git": map[string]any{"branch": "main"}},
			"gitlab":    {"endpoint": "https://127.0.0.1:1", "gitlab": map[string]any{"project": "platform/inv"}},
			"s3":        {"endpoint": "https://127.0.0.1:1/bucket"},
			"gcs":       {"endpoint": "gs://bucket"},
			"azureblob": {"endpoint": "https://127.0.0.1:1/account/container"},
		},
		map[string][]byte{"token": []byte("t"), "accessKeyID": []byte("a"), "secretAccessKey": []byte("s"),
			"credentials.json": googlecredstest.ServiceAccount(t, ""), "accountKey": []byte("c2VjcmV0")})
}
