package v1alpha1

import (
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// DeadLetter is one dead letter of a namespaced inventory: a snapshot event
// an exporter terminated after a permanent failure (busv1.DeadLetter). Its
// name is its sequence in the bus's dead-letter stream; its namespace the
// inventory's; its labels kollect.dev/inventory and kollect.dev/family
// select by inventory and by exporter family.
type DeadLetter struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Sequence is the dead letter's sequence in the dead-letter stream.
	Sequence uint64 `json:"sequence"`
	// Inventory is the inventory's name.
	Inventory string `json:"inventory"`
	// Family is the family of the exporter that gave up.
	Family busv1.Family `json:"family"`
	// Sink is the binding whose delivery failed, when the failure is one
	// sink's; nil otherwise (an undecodable event).
	Sink *busv1.SinkRef `json:"sink,omitempty"`
	// Revision is the snapshot revision that failed, when known.
	Revision uint64 `json:"revision,omitempty"`
	// Reason and Message say why (ExportRejected, SinkConfigPending,
	// EventUndecodable; docs/troubleshooting.md), as the binding's
	// condition in the inventory's status did.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// Time is when the exporter terminated the event.
	Time metav1.Time `json:"time"`
	// Subject and StreamSequence locate the terminated event on the bus.
	Subject        string `json:"subject"`
	StreamSequence uint64 `json:"streamSequence,omitempty"`
	// Headers are the terminated event's headers.
	Headers map[string][]string `json:"headers,omitempty"`
}

// DeadLetterList is a page of dead letters, oldest first.
type DeadLetterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the dead letters.
	Items []DeadLetter `json:"items"`
}

// ClusterDeadLetter is a dead letter of a KollectClusterInventory: the
// fields of a DeadLetter, cluster-scoped.
type ClusterDeadLetter DeadLetter

// ClusterDeadLetterList is a page of cluster inventories' dead letters,
// oldest first.
type ClusterDeadLetterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the dead letters.
	Items []ClusterDeadLetter `json:"items"`
}

// LabelFamily is the exporter family of a DeadLetter; list one family's
// with the label selector kollect.dev/family=FAMILY.
const LabelFamily = "kollect.dev/family"

// DeepCopyInto copies d into out.
func (d *DeadLetter) DeepCopyInto(out *DeadLetter) {
	*out = *d
	d.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	d.Time.DeepCopyInto(&out.Time)
	if d.Sink != nil {
		s := *d.Sink
		out.Sink = &s
	}
	if d.Headers != nil {
		out.Headers = maps.Clone(d.Headers)
		for k, v := range out.Headers {
			out.Headers[k] = slices.Clone(v)
		}
	}
}

// DeepCopyObject returns a deep copy of d.
func (d *DeadLetter) DeepCopyObject() runtime.Object {
	out := new(DeadLetter)
	d.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy of l.
func (l *DeadLetterList) DeepCopyObject() runtime.Object {
	out := &DeadLetterList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]DeadLetter, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// DeepCopyObject returns a deep copy of d.
func (d *ClusterDeadLetter) DeepCopyObject() runtime.Object {
	out := new(DeadLetter)
	(*DeadLetter)(d).DeepCopyInto(out)
	return (*ClusterDeadLetter)(out)
}

// DeepCopyObject returns a deep copy of l.
func (l *ClusterDeadLetterList) DeepCopyObject() runtime.Object {
	out := &ClusterDeadLetterList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]ClusterDeadLetter, len(l.Items))
		for i := range l.Items {
			(*DeadLetter)(&l.Items[i]).DeepCopyInto((*DeadLetter)(&out.Items[i]))
		}
	}
	return out
}
