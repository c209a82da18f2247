package v1alpha1

import "slices"

// SinkAllowLists are the effective sink allow lists of a Scope, one per
// family. A nil list means no restriction, an empty one allows nothing.
// +kubebuilder:object:generate=false
type SinkAllowLists struct {
	// Snapshot lists the KollectSnapshotSinks inventories may bind.
	Snapshot []string
	// Database lists the KollectDatabaseSinks inventories may bind.
	Database []string
	// Event lists the KollectEventSinks inventories may bind.
	Event []string
}

// SinkAllowLists folds the established any-family sinkRefs into the
// per-family lists, the one place that reads either spelling. Without
// sinkRefs each family keeps its own list. With it, a family allows the
// names of sinkRefs plus those of its own list; an absent family list then
// adds nothing (sinkRefs restricts every family). Nil rules restrict
// nothing.
func (r *ScopeRules) SinkAllowLists() SinkAllowLists {
	if r == nil {
		return SinkAllowLists{}
	}
	merge := func(family []string) []string {
		if r.SinkRefs == nil {
			return family
		}
		out := append([]string{}, r.SinkRefs...)
		out = append(out, family...)
		slices.Sort(out)
		return slices.Compact(out)
	}
	return SinkAllowLists{
		Snapshot: merge(r.SnapshotSinkRefs),
		Database: merge(r.DatabaseSinkRefs),
		Event:    merge(r.EventSinkRefs),
	}
}
