package informers

import (
	"bytes"
	"slices"
	"unique"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

var (
	_ metav1.Object     = (*Object)(nil)
	_ runtime.Object    = (*Object)(nil)
	_ schema.ObjectKind = (*Object)(nil)
)

// The identity accessors read and write the compact fields; the cache and
// the event handlers use only those.

// GetNamespace returns the namespace; "" for cluster-scoped objects.
func (o *Object) GetNamespace() string {
	if o.has&hasNamespace == 0 {
		return ""
	}
	return o.namespace.Value()
}

// SetNamespace sets the namespace.
func (o *Object) SetNamespace(ns string) {
	o.namespace, o.has = unique.Make(ns), o.has|hasNamespace|hasMetadata
}

// GetName returns the name.
func (o *Object) GetName() string { return o.name }

// SetName sets the name.
func (o *Object) SetName(name string) { o.name, o.has = name, o.has|hasName|hasMetadata }

// GetUID returns the uid.
func (o *Object) GetUID() types.UID { return types.UID(o.uid) }

// SetUID sets the uid.
func (o *Object) SetUID(uid types.UID) { o.uid, o.has = string(uid), o.has|hasUID|hasMetadata }

// GetResourceVersion returns the resourceVersion.
func (o *Object) GetResourceVersion() string { return o.rv }

// SetResourceVersion sets the resourceVersion.
func (o *Object) SetResourceVersion(rv string) {
	o.rv, o.has = rv, o.has|hasResourceVersion|hasMetadata
}

// GetLabels returns a new map of the labels; nil when the object has none.
func (o *Object) GetLabels() map[string]string {
	if o.has&hasLabels == 0 {
		return nil
	}
	m := make(map[string]string, len(o.labels))
	for _, l := range o.labels {
		m[l.key.Value()] = l.value
	}
	return m
}

// SetLabels sets the labels; nil removes them.
func (o *Object) SetLabels(labels map[string]string) {
	if labels == nil {
		o.labels, o.has = nil, o.has&^hasLabels
		return
	}
	m := make(map[string]any, len(labels))
	for k, v := range labels {
		m[k] = v
	}
	o.labels, _ = labelPairs(m)
	o.has |= hasLabels | hasMetadata
}

// GetObjectKind returns the object itself, which holds its apiVersion and
// kind.
func (o *Object) GetObjectKind() schema.ObjectKind { return o }

// GroupVersionKind returns the object's apiVersion and kind as a GVK.
func (o *Object) GroupVersionKind() schema.GroupVersionKind {
	var apiVersion, kind string
	if o.has&hasAPIVersion != 0 {
		apiVersion = o.apiVersion.Value()
	}
	if o.has&hasKind != 0 {
		kind = o.kind.Value()
	}
	return schema.FromAPIVersionAndKind(apiVersion, kind)
}

// SetGroupVersionKind sets the object's apiVersion and kind.
func (o *Object) SetGroupVersionKind(gvk schema.GroupVersionKind) {
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	o.apiVersion, o.kind = unique.Make(apiVersion), unique.Make(kind)
	o.has |= hasAPIVersion | hasKind
}

// DeepCopy returns a copy sharing nothing mutable with o.
func (o *Object) DeepCopy() *Object {
	c := *o
	c.labels = slices.Clone(o.labels)
	c.rest = bytes.Clone(o.rest)
	return &c
}

// DeepCopyObject returns DeepCopy as a runtime.Object.
func (o *Object) DeepCopyObject() runtime.Object { return o.DeepCopy() }

// view returns the object rebuilt, for the accessors of fields the compact
// form keeps as JSON; the empty object if it cannot be decoded (it always
// can: it was encoded as JSON).
func (o *Object) view() *unstructured.Unstructured {
	u, err := o.Unstructured()
	if err != nil {
		return &unstructured.Unstructured{Object: map[string]any{}}
	}
	return u
}

// edit rebuilds the object, applies f and compacts the result again.
func (o *Object) edit(f func(u *unstructured.Unstructured)) {
	u := o.view()
	f(u)
	if n, err := compactOwned(u.Object, nil); err == nil {
		*o = *n
	}
}
