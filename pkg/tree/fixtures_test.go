package tree_test

import (
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

// exportedAt is the fixed export time of the fixtures.
var exportedAt = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// fixtureRows holds a cluster-scoped row, a path collision between two
// kinds named Service, one Pod collected by two Targets (same uid), nested
// attributes and a full-resource export.
func fixtureRows() []busv1.Row {
	return []busv1.Row{
		{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: "web-1", UID: "u-pod",
			Version: "v1", Kind: "Pod", Attributes: map[string]any{
				"image":  "nginx:1.27",
				"ports":  []any{float64(80), float64(443)},
				"labels": map[string]any{"app": "web", "tier": "front"},
				"env":    []any{map[string]any{"name": "MODE", "value": "prod"}},
			}},
		{TargetNamespace: "team-a", TargetName: "all-pods", Namespace: "team-a", Name: "web-1", UID: "u-pod",
			Version: "v1", Kind: "Pod", Attributes: map[string]any{"image": "nginx:1.27"}},
		{TargetNamespace: "team-a", TargetName: "namespaces", Name: "team-a", UID: "u-ns",
			Version: "v1", Kind: "Namespace", Attributes: map[string]any{"phase": "Active"}},
		{TargetNamespace: "team-a", TargetName: "services", Namespace: "team-a", Name: "web", UID: "u-svc",
			Version: "v1", Kind: "Service", Attributes: map[string]any{"type": "ClusterIP"}},
		{TargetNamespace: "team-a", TargetName: "knative", Namespace: "team-a", Name: "web", UID: "u-ksvc",
			Group: "serving.knative.dev", Version: "v1", Kind: "Service", Attributes: map[string]any{"ready": true}},
		{TargetNamespace: "team-a", TargetName: "deployments", Namespace: "team-a", Name: "web", UID: "u-deploy",
			Group: "apps", Version: "v1", Kind: "Deployment", Attributes: map[string]any{
				"resource": map[string]any{
					"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
					"spec":     map[string]any{"replicas": float64(2)},
					"status":   map[string]any{"readyReplicas": float64(2)},
				},
			}},
	}
}

// fixture returns the stamped envelope of rows for inventory team-a/web.
func fixture(t testing.TB, rows []busv1.Row) busv1.Envelope {
	t.Helper()
	env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "web"}, 7, 3, rows)
	if err != nil {
		t.Fatalf("build envelope: %v", err)
	}
	return env.Stamp("prod", exportedAt)
}
