package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// InventoryStatus is the observed state of a KollectInventory, and the
// common part of a KollectClusterInventory's.
type InventoryStatus struct {
	// observedGeneration is the metadata.generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready, Synced, and Degraded with reasons ScopeSinkDenied,
	// SinkNotFound, ExportFailed.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// itemCount is the number of rows in the latest snapshot.
	// +optional
	ItemCount int64 `json:"itemCount,omitempty"`

	// lastExportTime is when the latest export to any sink succeeded.
	// +optional
	LastExportTime *metav1.Time `json:"lastExportTime,omitempty"`

	// sinkExports is the state of each binding.
	// +optional
	// +listType=map
	// +listMapKey=name
	SinkExports []SinkExportStatus `json:"sinkExports,omitempty"`

	// history is what the bus keeps of the inventory's history (its
	// spec.history retention applied), as of the aggregator's last trim:
	// the kollect history, diff and replay commands reach back to
	// history.oldestRevision.
	// +optional
	History *HistoryStatus `json:"history,omitempty"`
}

// HistoryStatus is the history kept for an inventory after the aggregator
// trimmed it to its retention (at every collection of the envelope store,
// at least every --gc-interval).
type HistoryStatus struct {
	// revisions is the number of distinct revisions kept.
	// +optional
	Revisions int64 `json:"revisions,omitempty"`

	// oldestRevision is the oldest revision kept.
	// +optional
	OldestRevision int64 `json:"oldestRevision,omitempty"`

	// oldestTime is when the oldest revision kept was published.
	// +optional
	OldestTime *metav1.Time `json:"oldestTime,omitempty"`

	// bytes is what the kept revisions reference on the bus (chunks,
	// manifests, envelopes, deltas), an object shared by several revisions
	// counted once.
	// +optional
	Bytes int64 `json:"bytes,omitempty"`
}

// SinkExportStatus is the state of one sink binding of an inventory.
type SinkExportStatus struct {
	// name identifies the binding: <family>/<sink> with family snapshot,
	// database or event (for cluster inventories
	// <family>/<namespace>/<sink>).
	// +required
	Name string `json:"name"`

	// lastExportTime is when the latest export to this sink succeeded.
	// +optional
	LastExportTime *metav1.Time `json:"lastExportTime,omitempty"`

	// lastChecksum is the envelope checksum of the latest snapshot the sink
	// holds.
	// +optional
	LastChecksum string `json:"lastChecksum,omitempty"`

	// lastRevision is the inventory revision of the latest snapshot the
	// sink holds.
	// +optional
	LastRevision int64 `json:"lastRevision,omitempty"`

	// conditions: Synced, with reason Exported, ExportFailed, SinkNotFound
	// or ScopeSinkDenied.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}
