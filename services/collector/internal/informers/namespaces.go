package informers

import (
	"context"
	"fmt"
	"maps"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"kollect.dev/kollect/pkg/selection"
)

var (
	namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	crdsGVR       = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// newMetadataInformers creates the Namespace and CRD informers; Run starts
// them.
func (m *Manager) newMetadataInformers(mc metadata.Interface) error {
	m.namespaces = metadatainformer.NewFilteredMetadataInformer(mc, namespacesGVR, "", 0, nil, nil).Informer()
	m.crds = metadatainformer.NewFilteredMetadataInformer(mc, crdsGVR, "", 0, nil, nil).Informer()
	for _, inf := range []cache.SharedIndexInformer{m.namespaces, m.crds} {
		if err := inf.SetTransform(stripMetadata); err != nil {
			return fmt.Errorf("set metadata transform: %w", err)
		}
	}
	nsChanged := func(obj any) {
		if o, err := objectMeta(obj); err == nil {
			m.handler.NamespaceChanged(o.GetName())
		}
	}
	_, err := m.namespaces.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: nsChanged,
		UpdateFunc: func(oldObj, newObj any) {
			o, err1 := objectMeta(oldObj)
			n, err2 := objectMeta(newObj)
			if err1 == nil && err2 == nil && (!maps.Equal(o.GetLabels(), n.GetLabels()) ||
				!maps.Equal(o.GetAnnotations(), n.GetAnnotations())) {
				m.handler.NamespaceChanged(n.GetName())
			}
		},
		DeleteFunc: nsChanged,
	})
	if err != nil {
		return fmt.Errorf("watch namespaces: %w", err)
	}
	crdChanged := func(any) { m.crdChanged("") }
	if _, err := m.crds.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: crdChanged, UpdateFunc: func(_, n any) { crdChanged(n) },
		DeleteFunc: func(obj any) {
			if o, err := objectMeta(obj); err == nil {
				// A CRD is named <plural>.<group>.
				_, group, _ := strings.Cut(o.GetName(), ".")
				m.crdChanged(group)
			}
		},
	}); err != nil {
		return fmt.Errorf("watch CRDs: %w", err)
	}
	return nil
}

// stripMetadata keeps what selection reads of a namespace (name, labels,
// annotations) and what the cache needs.
func stripMetadata(obj any) (any, error) {
	if o, ok := obj.(*metav1.PartialObjectMetadata); ok {
		o.ManagedFields = nil
		delete(o.Annotations, lastApplied)
	}
	return obj, nil
}

// WaitForNamespaces blocks until the Namespace informer holds a full list;
// it returns false when ctx ends first.
func (m *Manager) WaitForNamespaces(ctx context.Context) bool {
	return cache.WaitForCacheSync(ctx.Done(), m.namespaces.HasSynced)
}

// Namespace returns what selection needs of one namespace; ok is false when
// the namespace does not exist.
func (m *Manager) Namespace(name string) (selection.Namespace, bool) {
	obj, exists, err := m.namespaces.GetStore().GetByKey(name)
	if err != nil || !exists {
		return selection.Namespace{Name: name}, false
	}
	o, err := objectMeta(obj)
	if err != nil {
		return selection.Namespace{Name: name}, false
	}
	return selection.Namespace{Name: name, Labels: o.GetLabels(), Annotations: o.GetAnnotations()}, true
}

// Namespaces returns every namespace.
func (m *Manager) Namespaces() []selection.Namespace {
	objs := m.namespaces.GetStore().List()
	out := make([]selection.Namespace, 0, len(objs))
	for _, obj := range objs {
		if o, err := objectMeta(obj); err == nil {
			out = append(out, selection.Namespace{Name: o.GetName(), Labels: o.GetLabels(), Annotations: o.GetAnnotations()})
		}
	}
	return out
}
