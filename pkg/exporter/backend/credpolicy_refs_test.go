package backend_test

import (
	"context"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
)

// TestEveryNamespacedSecretReferenceFollowsTheRule covers the references
// besides spec.secretRef: databaseRef of postgres and mongodb and the
// established bigquery.secretRef.
func TestEveryNamespacedSecretReferenceFollowsTheRule(t *testing.T) {
	for _, tc := range []struct {
		name, spec, field string
	}{
		{"a postgres databaseRef in another namespace", `{"type":"postgres","postgres":{"table":"t","databaseRef":{"name":"other","namespace":"team-b"}}}`,
			"spec.postgres.databaseRef.namespace"},
		{"a mongodb databaseRef in another namespace", `{"type":"mongodb","mongodb":{"database":"d","collection":"c","databaseRef":{"name":"other","namespace":"team-b"}}}`,
			"spec.mongodb.databaseRef.namespace"},
		{"a bigquery secretRef in another namespace", `{"type":"bigquery","bigquery":{"dataset":"d","table":"t","secretRef":{"name":"other","namespace":"team-b"}}}`,
			"spec.bigquery.secretRef.namespace"},
	} {
		cfg := busv1.SinkConfig{Family: busv1.FamilyDatabase, Namespace: "team-a", Name: "s", Spec: []byte(tc.spec)}
		t.Run(tc.name+" is refused by default, naming the field and the flag", func(t *testing.T) {
			log := newReadLog()
			_, err := backend.CredentialPolicy{}.For(cfg, log)
			if v1alpha1.ReasonOf(err) != v1alpha1.ReasonSecretRefDenied {
				t.Fatalf("For: %v, want SecretRefDenied", err)
			}
			for _, want := range []string{tc.field, "--allow-cross-namespace-secret-refs"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal %q does not name %s", err, want)
				}
			}
			if len(log.Reads()) != 0 {
				t.Errorf("%d Secret reads happened, want none", len(log.Reads()))
			}
		})
		t.Run(tc.name+" is read when the operator allows it", func(t *testing.T) {
			log := newReadLog()
			creds, err := backend.CredentialPolicy{AllowCrossNamespaceSecretRefs: true}.For(cfg, log)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := creds.Secret(context.Background(), "team-b", "other"); err != nil || len(log.Reads()) != 1 {
				t.Fatalf("read team-b/other: %v after %d reads, want one read", err, len(log.Reads()))
			}
		})
	}
	t.Run("a databaseRef naming the sink's own namespace is allowed", func(t *testing.T) {
		cfg := busv1.SinkConfig{Family: busv1.FamilyDatabase, Namespace: "team-a", Name: "s",
			Spec: []byte(`{"type":"postgres","postgres":{"table":"t","databaseRef":{"name":"own","namespace":"team-a"}}}`)}
		if _, err := (backend.CredentialPolicy{}).For(cfg, newReadLog()); err != nil {
			t.Fatalf("For: %v", err)
		}
	})
}
