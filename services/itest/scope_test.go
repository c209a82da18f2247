package itest

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// TestScopeForbidsAKindANamespaceAndASink runs a team namespace whose
// Scope allows Deployments only, denies a neighbour namespace and allows
// one of two sinks: only the allowed rows reach the allowed sink, nothing
// reaches the other, and each refusal shows with its reason.
func TestScopeForbidsAKindANamespaceAndASink(t *testing.T) {
	t.Parallel()
	labels := map[string]string{"itest-scope": "yes"}
	ns := namespace(t, "scope-team", labels)
	other := namespace(t, "scope-other", labels)
	allowed, denied := newRepo(t, "scope-allowed"), newRepo(t, "scope-denied")
	apply(t, `
apiVersion: kollect.dev/v1alpha1
kind: KollectScope
metadata: {name: team, namespace: $ns}
spec:
  allowedGVKs: [{group: apps, kind: Deployment}]
  deniedNamespaces: [$other]
  snapshotSinkRefs: [allowed]
`, "$ns", ns, "$other", other)
	waitCondition(t, "KollectScope", ns, "team", v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonSucceeded)
	apply(t, `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: images, namespace: $ns}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes: [{name: images, path: "$.spec.template.spec.containers[*].image", type: list}]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: config, namespace: $ns}
spec:
  targetGVK: {version: v1, kind: ConfigMap}
  attributes: [{name: data, path: $.data, type: map}]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: selected, namespace: $ns}
spec:
  profileRef: {name: images}
  namespaceSelector: {matchLabels: {itest-scope: "yes"}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: named, namespace: $ns}
spec:
  profileRef: {name: images}
  includedNamespaces: [$other]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: configmaps, namespace: $ns}
spec:
  profileRef: {name: config}
  includedNamespaces: [$ns]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: allowed, namespace: $ns}
spec: {type: git, endpoint: $allowed}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: denied, namespace: $ns}
spec: {type: git, endpoint: $denied}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: apps, namespace: $ns}
spec:
  snapshotSinkRefs: [allowed, denied]
`, "$ns", ns, "$other", other, "$allowed", allowed.URL, "$denied", denied.URL)
	mine := deployment{ns: ns, name: "mine", images: []string{"mine:1"}, replicas: 1}.create(t)
	deployment{ns: other, name: "theirs", images: []string{"theirs:1"}, replicas: 1}.create(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}, Data: map[string]string{"k": "v"}}
	if err := sys.k8s.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}

	want := []busv1.Row{deploymentRow(ns, "selected", mine, map[string]any{"images": []any{"mine:1"}})}
	allowed.waitDocument(t, "inventory/"+ns+"/apps.yaml", want, ns+"/apps")
	waitCondition(t, "KollectTarget", ns, "configmaps", v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonScopeGVKDenied)
	// A selector that matches a denied namespace degrades the Target; one
	// that names it is refused.
	waitCondition(t, "KollectTarget", ns, "selected", v1alpha1.ConditionDegraded, metav1.ConditionTrue, v1alpha1.ReasonScopeNamespaceDenied)
	waitCondition(t, "KollectTarget", ns, "named", v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonScopeNamespaceDenied)
	waitCondition(t, "KollectInventory", ns, "apps", v1alpha1.ConditionDegraded, metav1.ConditionTrue, v1alpha1.ReasonScopeSinkDenied)
	eventually(t, waitFor, "binding snapshot/denied is not synced", func() error {
		st, err := statusOf(t, "KollectInventory", ns, "apps")
		if err != nil {
			return err
		}
		e, err := sinkExport(st, "snapshot/denied")
		if err != nil {
			return err
		}
		return hasCondition(e.Conditions, v1alpha1.ConditionSynced, metav1.ConditionFalse, v1alpha1.ReasonScopeSinkDenied)
	}, ns+"/apps")
	if files, err := denied.files(); err != nil || len(files) != 0 {
		t.Errorf("the denied sink holds %d files (%v), want none", len(files), err)
	}
}
