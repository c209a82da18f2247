package eventexporter_test

import (
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter/exportertest"
	"kollect.dev/kollect/services/eventexporter"
)

// Every event backend (kafka, nats) reads the Secret of another namespace
// only when the operator allows cross-namespace references, and then only
// that one.
func TestEveryEventBackendReadsOnlyTheSecretsThePolicyAllows(t *testing.T) {
	exportertest.CheckSecretRefNamespaces(t, busv1.FamilyEvent, eventexporter.Backends(eventexporter.DefaultConfig()),
		map[string]map[string]any{
			"kafka": {"kafka": map[string]any{"brokers": []string{"127.0.0.1:1"}, "topic": "inv",
				"sasl": map[string]any{"mechanism": "PLAIN"}}},
			"nats": {"endpoint": "nats://127.0.0.1:1", "nats": map[string]any{"subject": "inv"}},
		},
		map[string][]byte{"username": []byte("u"), "password": []byte("p")})
}
