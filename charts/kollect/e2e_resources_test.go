package chart_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// e2eResources are the objects of the end-to-end run: the grant that lets team-a's Targets
// (ServiceAccount kollect) list its Deployments, one Profile and Target over them, a
// PostgreSQL sink, and inventories bound to it.
func e2eResources(inventories int) string {
	s := `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: deployment-images, namespace: team-a}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes:
  - {name: images, path: "$.spec.template.spec.containers[*].image", type: list}
  - {name: replicas, path: "$.spec.replicas", type: int}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: kollect-read, namespace: team-a}
rules:
- {apiGroups: [apps], resources: [deployments], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: kollect-read, namespace: team-a}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: kollect-read}
subjects:
- {kind: ServiceAccount, name: kollect, namespace: team-a}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: deployments, namespace: team-a}
spec:
  profileRef: {name: deployment-images}
  includedNamespaces: [team-a]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: postgres, namespace: team-a}
spec:
  type: postgres
  secretRef: {name: postgres-credentials}
  postgres: {table: kollect_rows}
`
	for i := range inventories {
		s += fmt.Sprintf(`---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: inventory-%d, namespace: team-a}
spec:
  databaseSinkRefs: [postgres]
`, i)
	}
	return s
}

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
