package itest

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// TestClusterRollUpWithBothDedupeModes collects Deployments of two
// namespaces with two overlapping ClusterTargets and rolls them up into two
// ClusterInventories: keepAll keeps a row per target, byResourceUID one
// per object (the first in contract order).
func TestClusterRollUpWithBothDedupeModes(t *testing.T) {
	t.Parallel()
	labels := map[string]string{"itest-rollup": "yes"}
	platform := namespace(t, "rollup-platform", nil)
	nsA, nsB := namespace(t, "rollup-a", labels), namespace(t, "rollup-b", labels)
	keepAll, byUID := newRepo(t, "rollup-keepall"), newRepo(t, "rollup-byuid")
	apply(t, `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: images, namespace: $platform}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes: [{name: images, path: "$.spec.template.spec.containers[*].image", type: list}]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectClusterTarget
metadata: {name: rollup-all}
spec:
  profileRef: {name: images, namespace: $platform}
  namespaceSelector: {matchLabels: {itest-rollup: "yes"}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectClusterTarget
metadata: {name: rollup-front}
spec:
  profileRef: {name: images, namespace: $platform}
  namespaceSelector: {matchLabels: {itest-rollup: "yes"}}
  labelSelector: {matchLabels: {tier: front}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: keepall, namespace: $platform}
spec: {type: git, endpoint: $keepall}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: byuid, namespace: $platform}
spec: {type: git, endpoint: $byuid}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectClusterInventory
metadata: {name: rollup-keepall}
spec:
  targetRefs: [rollup-all, rollup-front]
  sinkNamespace: $platform
  dedupe: keepAll
  snapshotSinkRefs: [keepall]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectClusterInventory
metadata: {name: rollup-byuid}
spec:
  targetRefs: [rollup-all, rollup-front]
  sinkNamespace: $platform
  dedupe: byResourceUID
  snapshotSinkRefs: [byuid]
`, "$platform", platform, "$keepall", keepAll.URL, "$byuid", byUID.URL)
	front := map[string]string{"tier": "front"}
	objs := []*appsv1.Deployment{
		deployment{ns: nsA, name: "shop", images: []string{"shop:1"}, replicas: 1, labels: front}.create(t),
		deployment{ns: nsA, name: "batch", images: []string{"batch:1"}, replicas: 1}.create(t),
		deployment{ns: nsB, name: "blog", images: []string{"blog:1"}, replicas: 1, labels: front}.create(t),
	}
	row := func(target string, i int) busv1.Row {
		return deploymentRow("", target, objs[i], map[string]any{"images": []any{objs[i].Spec.Template.Spec.Containers[0].Image}})
	}
	check := func(keep, uid []busv1.Row) {
		t.Helper()
		keepAll.waitDocument(t, "inventory/_cluster/rollup-keepall.yaml", keep, "/rollup-keepall")
		byUID.waitDocument(t, "inventory/_cluster/rollup-byuid.yaml", uid, "/rollup-byuid")
	}
	check([]busv1.Row{row("rollup-all", 0), row("rollup-all", 1), row("rollup-all", 2), row("rollup-front", 0), row("rollup-front", 2)},
		[]busv1.Row{row("rollup-all", 0), row("rollup-all", 1), row("rollup-all", 2)})
	remove(t, objs[2])
	check([]busv1.Row{row("rollup-all", 0), row("rollup-all", 1), row("rollup-front", 0)},
		[]busv1.Row{row("rollup-all", 0), row("rollup-all", 1)})
}
