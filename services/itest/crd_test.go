package itest

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// TestCRDInstalledAfterStart targets a kind whose CRD does not exist yet,
// then installs the CRD and creates objects: their rows reach the sink.
func TestCRDInstalledAfterStart(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "late-crd", nil)
	repo := newRepo(t, "late-crd")
	apply(t, `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: widgets, namespace: $ns}
spec:
  targetGVK: {group: itest.kollect.dev, version: v1, kind: Widget}
  attributes:
  - {name: size, path: $.spec.size, type: int}
  - {name: color, path: "cel:object.spec.color", type: string}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: widgets, namespace: $ns}
spec:
  profileRef: {name: widgets}
  includedNamespaces: [$ns]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: git, namespace: $ns}
spec: {type: git, endpoint: $url}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: widgets, namespace: $ns}
spec:
  snapshotSinkRefs: [git]
`, "$ns", ns, "$url", repo.URL)
	// The Target was seen before the CRD exists.
	eventually(t, waitFor, "Target widgets has a Ready condition", func() error {
		st, err := statusOf(t, "KollectTarget", ns, "widgets")
		if err != nil {
			return err
		}
		if meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionReady) == nil {
			return fmt.Errorf("no Ready condition yet: %+v", st.Conditions)
		}
		return nil
	})
	apply(t, `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.itest.kollect.dev}
spec:
  group: itest.kollect.dev
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
`)
	var rows []busv1.Row
	for _, w := range []struct {
		name, color string
		size        int
	}{{"small", "red", 1}, {"large", "blue", 9}} {
		u := &unstructured.Unstructured{}
		text := "apiVersion: itest.kollect.dev/v1\nkind: Widget\nmetadata: {name: " + w.name + ", namespace: " + ns +
			"}\nspec: {color: " + w.color + ", size: " + string(rune('0'+w.size)) + "}\n"
		if err := yaml.Unmarshal([]byte(text), &u.Object); err != nil {
			t.Fatal(err)
		}
		eventually(t, waitFor, "create Widget "+w.name, func() error { return sys.k8s.Create(t.Context(), u) })
		rows = append(rows, busv1.Row{TargetNamespace: ns, TargetName: "widgets", Namespace: ns, Name: w.name,
			UID: string(u.GetUID()), Group: "itest.kollect.dev", Version: "v1", Kind: "Widget",
			Attributes: map[string]any{"size": w.size, "color": w.color}})
	}
	repo.waitDocument(t, "inventory/"+ns+"/widgets.yaml", rows, ns+"/widgets")
}
