package databaseexporter_test

import (
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter/exportertest"
	"kollect.dev/kollect/pkg/googlecreds/googlecredstest"
	"kollect.dev/kollect/services/databaseexporter"
)

// Every database backend (postgres, mongodb, bigquery) reads the Secret of
// another namespace only when the operator allows cross-namespace
// references, and then only that one.
func TestEveryDatabaseBackendReadsOnlyTheSecretsThePolicyAllows(t *testing.T) {
	exportertest.CheckSecretRefNamespaces(t, busv1.FamilyDatabase, databaseexporter.Backends(databaseexporter.DefaultConfig()),
		map[string]map[string]any{
			"postgres": {"endpoint": "postgres://127.0.0.1:1/inv", "postgres": map[string]any{"table": "rows"}},
			"mongodb":  {"endpoint": "mongodb://127.0.0.1:1", "mongodb": map[string]any{"database": "inv", "collection": "rows"}},
			"bigquery": {"bigquery": map[string]any{"project": "p1", "dataset": "d", "table": "t"}},
		},
		map[string][]byte{"username": []byte("u"), "password": []byte("p"), "uri": []byte("mongodb://u:p@127.0.0.1:1"),
			"credentials.json": googlecredstest.ServiceAccount(t, "")})
}
