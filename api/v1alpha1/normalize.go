package v1alpha1

import "k8s.io/apimachinery/pkg/runtime"

// Normalizer is a Kollect object that can rewrite the established v1alpha1
// spellings it accepts (see docs/migrating.md) into the canonical ones.
// +kubebuilder:object:generate=false
type Normalizer interface {
	// Normalize rewrites the object's spec in place into the canonical
	// spellings, keeping its meaning.
	Normalize()
}

// Normalize rewrites obj into the canonical spellings when it is a
// Normalizer and leaves it unchanged otherwise. Control, the collector and
// the CLI read specs through this one function (or the methods it calls),
// so that no service branches on spellings.
func Normalize(obj runtime.Object) {
	if n, ok := obj.(Normalizer); ok {
		n.Normalize()
	}
}

// Normalize writes profileRef in the object form. A reference that does
// not decode is kept as written, for DecodeError to report.
func (t *KollectTarget) Normalize() {
	if t.Spec.ProfileRef.DecodeError() == nil {
		t.Spec.ProfileRef = t.Spec.ProfileRef.Canonical()
	}
}

// Normalize folds sinkRefs into the per-family lists (SinkAllowLists).
func (r *ScopeRules) Normalize() {
	lists := r.SinkAllowLists()
	r.SinkRefs = nil
	r.SnapshotSinkRefs, r.DatabaseSinkRefs, r.EventSinkRefs = lists.Snapshot, lists.Database, lists.Event
}

// Normalize folds the Scope's sinkRefs into its per-family lists.
func (s *KollectScope) Normalize() { s.Spec.Normalize() }

// Normalize folds the ClusterScope's sinkRefs into its per-family lists.
func (s *KollectClusterScope) Normalize() { s.Spec.ScopeRules.Normalize() }
