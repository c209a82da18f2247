package e2efixture

import "fmt"

// Tenant is team-a's objects as YAML documents: the grant that lets its
// Targets (ServiceAccount kollect) list its Deployments, one Profile and
// Target over them, a PostgreSQL sink (Secret postgres-credentials, table
// kollect_rows) and inventories inventory-0 … inventory-<n-1> bound to it.
// withServiceAccount adds the ServiceAccount itself, for a cluster that
// does not create it.
func Tenant(inventories int, withServiceAccount bool) string {
	s := ""
	if withServiceAccount {
		s += `
apiVersion: v1
kind: ServiceAccount
metadata: {name: kollect, namespace: team-a}
---`
	}
	s += `
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
		s += Inventory(i)
	}
	return s
}

// Inventory is team-a's inventory-<i>, bound to the PostgreSQL sink, as a
// YAML document starting with its separator.
func Inventory(i int) string {
	return fmt.Sprintf(`---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: inventory-%d, namespace: team-a}
spec:
  databaseSinkRefs: [postgres]
`, i)
}
