package chart_test

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"kollect.dev/kollect/pkg/testenv/e2efixture"
)

// e2eResources are the objects of the end-to-end run: team-a's tenant of
// e2efixture with the given number of inventories.
func e2eResources(inventories int) string { return e2efixture.Tenant(inventories, false) }

func e2eDeployment(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": "team-a"},
		"spec": map[string]any{
			"replicas": int64(1),
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx:1.27"}}},
			},
		},
	}}
}
