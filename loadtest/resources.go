package loadtest

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// Names of the load test's Kollect resources. The system run's inventories
// are named InventoryName in every load namespace (shape.go); the fault and
// abuse suites and `kollect collect` use one inventory in ControlNamespace
// whose Targets collect every load namespace (collectResources).
const (
	ControlNamespace = "kollect-load"
	InventoryName    = "load"
	Cluster          = "load"
	Table            = "inventory"
	CMTarget         = "configmaps"
	DeployTarget     = "deployments"
)

// collectResources are the Profiles, Targets and the inventory: what both the
// services and `kollect collect` read.
func collectResources(tier string) string {
	return fmt.Sprintf(`apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: configmaps, namespace: %[1]s}
spec:
  targetGVK: {version: v1, kind: ConfigMap}
  attributes:
  - {name: seq, path: "$.metadata.annotations['%[2]s']", type: string}
  - {name: app, path: "$.metadata.labels['app.kubernetes.io/name']", type: string, optional: true}
  - {name: team, path: $.metadata.labels.team, type: string, optional: true}
  - {name: owner, path: "$.metadata.annotations['example.com/owner']", type: string, optional: true}
  - {name: endpoint, path: $.data.endpoint, type: string, optional: true}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: deployments, namespace: %[1]s}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes:
  - {name: seq, path: "$.metadata.annotations['%[2]s']", type: string}
  - {name: images, path: "$.spec.template.spec.containers[*].image", type: list}
  - {name: replicas, path: $.spec.replicas, type: int}
  - {name: team, path: $.metadata.labels.team, type: string, optional: true}
  - {name: owner, path: "$.metadata.annotations['example.com/owner']", type: string, optional: true}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: %[4]s, namespace: %[1]s}
spec:
  profileRef: {name: configmaps}
  labelSelector: {matchLabels: {%[3]s: %[6]q}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: %[5]s, namespace: %[1]s}
spec:
  profileRef: {name: deployments}
  labelSelector: {matchLabels: {%[3]s: %[6]q}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: %[7]s, namespace: %[1]s}
spec:
  snapshotSinkRefs: [git]
  databaseSinkRefs: [postgres]
`, ControlNamespace, SeqAnnotation, TierLabel, CMTarget, DeployTarget, tier, InventoryName)
}

// accessResources let the Targets of the control namespace (ServiceAccount
// kollect) list ConfigMaps and Deployments cluster-wide: a Target collects
// only what its ServiceAccount may list. The role also gets
// KollectInventories: a KollectReplay runs only while its namespace's
// ServiceAccount may get the inventory (the abuse scenario's replays).
func accessResources() string {
	return fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: kollect-loadtest-read}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list, watch]}
- {apiGroups: [apps], resources: [deployments], verbs: [get, list, watch]}
- {apiGroups: [kollect.dev], resources: [kollectinventories], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: kollect-loadtest-read}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kollect-loadtest-read}
subjects:
- {kind: ServiceAccount, name: kollect, namespace: %s}
`, ControlNamespace)
}

// sinkResources are the Secret and the PostgreSQL and Git perResource sinks
// of the control namespace.
func sinkResources(dsn, repoURL string) string {
	return sinkResourcesIn(ControlNamespace, dsn, repoURL, "")
}

// sinkResourcesIn are the Secret and the PostgreSQL and Git perResource
// sinks in namespace ns: every namespace's write the same table and
// repository, the Git sink to branch when one is given (else main), as a
// team would that shares a repository with others.
func sinkResourcesIn(ns, dsn, repoURL, branch string) string {
	git := ""
	if branch != "" {
		git = "\n  git: {branch: " + branch + "}"
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata: {name: postgres-dsn, namespace: %[1]s}
stringData: {dsn: %[2]q}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: git, namespace: %[1]s}
spec:
  type: git
  endpoint: %[3]s
  cluster: %[4]s
  layout: {mode: perResource}%[6]s
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: postgres, namespace: %[1]s}
spec:
  type: postgres
  secretRef: {name: postgres-dsn}
  cluster: %[4]s
  postgres: {table: %[5]s}`, ns, dsn, repoURL, Cluster, Table, git)
}

// apply creates every object of a multi-document YAML string.
func apply(ctx context.Context, c client.Client, docs string) error {
	for _, doc := range strings.Split(docs, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			return fmt.Errorf("decode resource: %w", err)
		}
		if u.Object == nil {
			continue
		}
		if err := c.Create(ctx, u); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
	}
	return nil
}
