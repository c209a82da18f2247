package itest

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestCELAndJSONPathToGitDocument extracts attributes with CEL and both
// JSONPath dialects (typed, optional and required-but-missing) into one
// YAML document per inventory.
func TestCELAndJSONPathToGitDocument(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "git-doc", nil)
	repo := newRepo(t, "git-doc")
	apply(t, `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: paths, namespace: $ns}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes:
  - {name: image, path: "cel:object.spec.template.spec.containers[0].image", type: string}
  - {name: containers, path: "cel:size(object.spec.template.spec.containers)", type: int}
  - {name: scaled, path: "cel:object.spec.replicas > 2", type: bool}
  - {name: names, path: "cel:object.spec.template.spec.containers.map(c, c.name)", type: list}
  - {name: team, path: "{.metadata.labels.team}", type: string, optional: true}
  - {name: owner, path: "$.metadata.annotations['example.com/owner']", type: string}
  - {name: ports, path: "$.spec.template.spec.containers[*].ports[*].containerPort", type: list}
  - {name: selector, path: "$.spec.selector.matchLabels", type: map}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: labelled, namespace: $ns}
spec:
  profileRef: {name: paths}
  includedNamespaces: [$ns]
  labelSelector: {matchLabels: {export: "yes"}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: git, namespace: $ns}
spec:
  type: git
  endpoint: $url
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: catalog, namespace: $ns}
spec:
  snapshotSinkRefs: [git]
`, "$ns", ns, "$url", repo.URL)
	shop := deployment{ns: ns, name: "shop", images: []string{"shop:2.1", "sidecar:1"}, replicas: 3,
		labels: map[string]string{"export": "yes", "team": "payments"}}.create(t)
	update(t, ns, "shop", func(d *appsv1Deployment) {
		d.Annotations = map[string]string{"example.com/owner": "alice"}
		d.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 8080}, {ContainerPort: 9090}}
		d.Spec.Template.Spec.Containers[1].Ports = []corev1.ContainerPort{{ContainerPort: 15000}}
	})
	cron := deployment{ns: ns, name: "cron", images: []string{"cron:0.9"}, replicas: 1,
		labels: map[string]string{"export": "yes"}}.create(t)
	deployment{ns: ns, name: "hidden", images: []string{"hidden:1"}, replicas: 1}.create(t)

	want := []rowT{
		deploymentRow(ns, "labelled", shop, map[string]any{"image": "shop:2.1", "containers": 2, "scaled": true,
			"names": []any{"c0", "c1"}, "team": "payments", "owner": "alice", "ports": []any{8080, 9090, 15000},
			"selector": map[string]any{"app": "shop"}}),
		deploymentRow(ns, "labelled", cron, map[string]any{"image": "cron:0.9", "containers": 1, "scaled": false,
			"names": []any{"c0"}, "owner": nil, "ports": []any{}, "selector": map[string]any{"app": "cron"}}),
	}
	repo.waitDocument(t, "inventory/"+ns+"/catalog.yaml", want, ns+"/catalog")
}
