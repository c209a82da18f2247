package v1alpha1

import "k8s.io/apimachinery/pkg/runtime"

// DeepCopyInto copies r into out.
func (r *InventoryRevision) DeepCopyInto(out *InventoryRevision) {
	*out = *r
	r.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	r.Time.DeepCopyInto(&out.Time)
}

// DeepCopyObject returns a deep copy of r.
func (r *InventoryRevision) DeepCopyObject() runtime.Object {
	out := new(InventoryRevision)
	r.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy of l.
func (l *InventoryRevisionList) DeepCopyObject() runtime.Object {
	out := &InventoryRevisionList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]InventoryRevision, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// DeepCopyInto copies h into out.
func (h *InventoryHistory) DeepCopyInto(out *InventoryHistory) {
	*out = *h
	h.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	h.Oldest.Time.DeepCopyInto(&out.Oldest.Time)
	h.Latest.Time.DeepCopyInto(&out.Latest.Time)
}

// DeepCopyObject returns a deep copy of h.
func (h *InventoryHistory) DeepCopyObject() runtime.Object {
	out := new(InventoryHistory)
	h.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy of l.
func (l *InventoryHistoryList) DeepCopyObject() runtime.Object {
	out := &InventoryHistoryList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]InventoryHistory, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}
