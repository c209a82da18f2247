package collector_test

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// widgetCRD is a namespaced test.kollect.dev/v1 Widget CRD that keeps any
// field.
func widgetCRD() *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "widgets.test.kollect.dev"},
		"spec": map[string]any{
			"group": "test.kollect.dev",
			"scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "x-kubernetes-preserve-unknown-fields": true,
				}},
			}},
		},
	}}
	return u
}

// widget returns a Widget object with spec.size.
func widget(ns, name string, size int64) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{"size": size},
	}}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: "test.kollect.dev", Version: "v1", Kind: "Widget"})
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// installWidgets creates the Widget CRD and waits until Widgets can be
// created; the CRD is deleted after the test.
func installWidgets(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	crd := widgetCRD()
	create(t, crd)
	t.Cleanup(func() { _ = kube.Client.Delete(context.Background(), widgetCRD()) })
	eventually(t, 30*time.Second, "the Widget kind is served", func() error {
		var l unstructured.UnstructuredList
		l.SetGroupVersionKind(schema.GroupVersionKind{Group: "test.kollect.dev", Version: "v1", Kind: "WidgetList"})
		return kube.Client.List(t.Context(), &l, client.InNamespace("default"))
	})
	return crd
}
