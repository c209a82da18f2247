package informers

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The accessors of metadata the compact form keeps as JSON (when the
// transform kept it at all) rebuild the object: nothing in the collector
// calls them on a cached object, they exist to make Object a metav1.Object.

// GetGenerateName returns metadata.generateName.
func (o *Object) GetGenerateName() string { return o.view().GetGenerateName() }

// SetGenerateName sets metadata.generateName.
func (o *Object) SetGenerateName(name string) {
	o.edit(func(u *unstructured.Unstructured) { u.SetGenerateName(name) })
}

// GetGeneration returns metadata.generation.
func (o *Object) GetGeneration() int64 { return o.view().GetGeneration() }

// SetGeneration sets metadata.generation.
func (o *Object) SetGeneration(generation int64) {
	o.edit(func(u *unstructured.Unstructured) { u.SetGeneration(generation) })
}

// GetSelfLink returns metadata.selfLink.
func (o *Object) GetSelfLink() string { return o.view().GetSelfLink() }

// SetSelfLink sets metadata.selfLink.
func (o *Object) SetSelfLink(selfLink string) {
	o.edit(func(u *unstructured.Unstructured) { u.SetSelfLink(selfLink) })
}

// GetCreationTimestamp returns metadata.creationTimestamp.
func (o *Object) GetCreationTimestamp() metav1.Time { return o.view().GetCreationTimestamp() }

// SetCreationTimestamp sets metadata.creationTimestamp.
func (o *Object) SetCreationTimestamp(t metav1.Time) {
	o.edit(func(u *unstructured.Unstructured) { u.SetCreationTimestamp(t) })
}

// GetDeletionTimestamp returns metadata.deletionTimestamp.
func (o *Object) GetDeletionTimestamp() *metav1.Time { return o.view().GetDeletionTimestamp() }

// SetDeletionTimestamp sets metadata.deletionTimestamp.
func (o *Object) SetDeletionTimestamp(t *metav1.Time) {
	o.edit(func(u *unstructured.Unstructured) { u.SetDeletionTimestamp(t) })
}

// GetDeletionGracePeriodSeconds returns metadata.deletionGracePeriodSeconds.
func (o *Object) GetDeletionGracePeriodSeconds() *int64 {
	return o.view().GetDeletionGracePeriodSeconds()
}

// SetDeletionGracePeriodSeconds sets metadata.deletionGracePeriodSeconds.
func (o *Object) SetDeletionGracePeriodSeconds(s *int64) {
	o.edit(func(u *unstructured.Unstructured) { u.SetDeletionGracePeriodSeconds(s) })
}

// GetAnnotations returns the annotations the transform kept.
func (o *Object) GetAnnotations() map[string]string { return o.view().GetAnnotations() }

// SetAnnotations sets metadata.annotations.
func (o *Object) SetAnnotations(a map[string]string) {
	o.edit(func(u *unstructured.Unstructured) { u.SetAnnotations(a) })
}

// GetFinalizers returns metadata.finalizers.
func (o *Object) GetFinalizers() []string { return o.view().GetFinalizers() }

// SetFinalizers sets metadata.finalizers.
func (o *Object) SetFinalizers(f []string) {
	o.edit(func(u *unstructured.Unstructured) { u.SetFinalizers(f) })
}

// GetOwnerReferences returns metadata.ownerReferences.
func (o *Object) GetOwnerReferences() []metav1.OwnerReference {
	return o.view().GetOwnerReferences()
}

// SetOwnerReferences sets metadata.ownerReferences.
func (o *Object) SetOwnerReferences(r []metav1.OwnerReference) {
	o.edit(func(u *unstructured.Unstructured) { u.SetOwnerReferences(r) })
}

// GetManagedFields returns metadata.managedFields.
func (o *Object) GetManagedFields() []metav1.ManagedFieldsEntry {
	return o.view().GetManagedFields()
}

// SetManagedFields sets metadata.managedFields.
func (o *Object) SetManagedFields(m []metav1.ManagedFieldsEntry) {
	o.edit(func(u *unstructured.Unstructured) { u.SetManagedFields(m) })
}
