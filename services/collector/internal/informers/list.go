package informers

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ObjectList is a list response decoded straight into compact Objects, for
// the reflector: it reads the list metadata and the Items.
type ObjectList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []*Object
}

var _ metav1.ListInterface = (*ObjectList)(nil)

// DeepCopyObject returns a copy sharing nothing mutable with l.
func (l *ObjectList) DeepCopyObject() runtime.Object {
	c := &ObjectList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&c.ListMeta)
	c.Items = slices.Clone(l.Items)
	for i, o := range c.Items {
		c.Items[i] = o.DeepCopy()
	}
	return c
}
