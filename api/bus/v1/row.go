package busv1

import (
	"cmp"
	"time"
)

// Row is one collected object of one Target, exactly the row of docs/contract.md.
type Row struct {
	// TargetNamespace is the Target's namespace; empty for a ClusterTarget.
	TargetNamespace string `json:"targetNamespace"`
	// TargetName is the Target's (or ClusterTarget's) name.
	TargetName string `json:"targetName"`
	// Namespace of the source object; empty for cluster-scoped kinds.
	Namespace string `json:"namespace"`
	// Name of the source object.
	Name string `json:"name"`
	// UID of the source object: its identity.
	UID string `json:"uid"`
	// Group of the Profile's GVK; empty for the core group.
	Group string `json:"group"`
	// Version of the Profile's GVK.
	Version string `json:"version"`
	// Kind of the Profile's GVK.
	Kind string `json:"kind"`
	// Attributes are the extracted, redacted values keyed by attribute name.
	Attributes map[string]any `json:"attributes"`
}

// Key returns the row's identity.
func (r Row) Key() RowKey {
	return RowKey{
		TargetNamespace: r.TargetNamespace,
		TargetName:      r.TargetName,
		UID:             r.UID,
		ClusterTarget:   r.TargetNamespace == "",
	}
}

// CompareRows orders rows by targetNamespace, targetName, namespace, name and
// uid: the canonical order of docs/contract.md, for slices.SortFunc.
func CompareRows(a, b Row) int {
	return cmp.Or(
		cmp.Compare(a.TargetNamespace, b.TargetNamespace),
		cmp.Compare(a.TargetName, b.TargetName),
		cmp.Compare(a.Namespace, b.Namespace),
		cmp.Compare(a.Name, b.Name),
		cmp.Compare(a.UID, b.UID),
	)
}

// RowKey is the identity of a row: (targetNamespace, targetName, uid).
type RowKey struct {
	// TargetNamespace is the Target's namespace; empty for a ClusterTarget.
	TargetNamespace string `json:"targetNamespace"`
	// TargetName is the Target's (or ClusterTarget's) name.
	TargetName string `json:"targetName"`
	// UID of the source object.
	UID string `json:"uid"`
	// ClusterTarget is true when the row comes from a KollectClusterTarget;
	// TargetNamespace is then empty.
	ClusterTarget bool `json:"clusterTarget,omitempty"`
}

// RowEntry is the value stored in the rows KV bucket for one row key: the
// collector's latest view of one object. An object that leaves the Target's
// selection, or is deleted, is a KV delete (tombstone) of its key.
type RowEntry struct {
	// Row is the collected row.
	Row Row `json:"row"`
	// TargetGeneration is the Target generation the row was extracted with.
	TargetGeneration int64 `json:"targetGeneration"`
	// ObservedAt is when the collector extracted the row.
	ObservedAt time.Time `json:"observedAt"`
	// AttributeTypes are the declared types of the attributes of the
	// Target's Profile, every attribute's (any included) and only
	// attributes': not part of the row's content, so not of its checksum.
	// Absent in entries of collectors that predate them (the aggregator
	// then knows no types for the Target).
	AttributeTypes AttributeTypes `json:"attributeTypes,omitempty"`
}
