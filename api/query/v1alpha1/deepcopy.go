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

// DeepCopyObject returns a deep copy of r.
func (r *ClusterInventoryRevision) DeepCopyObject() runtime.Object {
	out := new(InventoryRevision)
	(*InventoryRevision)(r).DeepCopyInto(out)
	return (*ClusterInventoryRevision)(out)
}

// DeepCopyObject returns a deep copy of l.
func (l *ClusterInventoryRevisionList) DeepCopyObject() runtime.Object {
	out := &ClusterInventoryRevisionList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]ClusterInventoryRevision, len(l.Items))
		for i := range l.Items {
			(*InventoryRevision)(&l.Items[i]).DeepCopyInto((*InventoryRevision)(&out.Items[i]))
		}
	}
	return out
}

// DeepCopyObject returns a deep copy of h.
func (h *ClusterInventoryHistory) DeepCopyObject() runtime.Object {
	out := new(InventoryHistory)
	(*InventoryHistory)(h).DeepCopyInto(out)
	return (*ClusterInventoryHistory)(out)
}

// DeepCopyObject returns a deep copy of l.
func (l *ClusterInventoryHistoryList) DeepCopyObject() runtime.Object {
	out := &ClusterInventoryHistoryList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]ClusterInventoryHistory, len(l.Items))
		for i := range l.Items {
			(*InventoryHistory)(&l.Items[i]).DeepCopyInto((*InventoryHistory)(&out.Items[i]))
		}
	}
	return out
}
