package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DeletionPolicy says what happens to exported data when an inventory is
// deleted.
// +kubebuilder:validation:Enum=Retain;Delete
type DeletionPolicy string

// Deletion policies.
const (
	// DeletionRetain leaves exported data where it is.
	DeletionRetain DeletionPolicy = "Retain"
	// DeletionDelete removes the inventory's data from snapshot stores and
	// databases and sends a final empty snapshot to event sinks.
	DeletionDelete DeletionPolicy = "Delete"
)

// KollectInventorySpec says how the rows of a namespace roll up and where
// they go.
type KollectInventorySpec struct {
	// snapshotSinkRefs bind KollectSnapshotSinks of the inventory's
	// namespace, of any type (see the sink's spec.type). Each entry is a sink
	// name or an object {name, exportMinInterval, maxExportBytes}. At most 20.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	SnapshotSinkRefs []SinkBinding `json:"snapshotSinkRefs,omitempty"`

	// databaseSinkRefs bind KollectDatabaseSinks of the inventory's
	// namespace, of any type (see the sink's spec.type), in the same form as
	// snapshotSinkRefs. At most 20.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	DatabaseSinkRefs []SinkBinding `json:"databaseSinkRefs,omitempty"`

	// eventSinkRefs bind KollectEventSinks of the inventory's namespace, of
	// any type (see the sink's spec.type), in the same form as
	// snapshotSinkRefs. At most 20.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	EventSinkRefs []SinkBinding `json:"eventSinkRefs,omitempty"`

	// exportMinInterval is the period of re-exports of an unchanged
	// snapshot (default 30s, between 0s and 24h). A material change, of
	// rows or of spec, exports at once whatever the interval. A binding's
	// own exportMinInterval overrides the sink's, which overrides this one.
	// Other than 0 (on change only), at least the operator's minimum
	// (--min-export-interval, 10s by default) and a KollectScope's.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('24h')",message="exportMinInterval must be between 0s and 24h"
	ExportMinInterval *metav1.Duration `json:"exportMinInterval,omitempty"`

	// maxExportBytes is the largest single message or file part sent to
	// sinks that split snapshots into parts (the event buses). Parts of one
	// snapshot keep one inventory identity. A snapshot that cannot be
	// delivered is an error in status, never skipped. At least 1024; the
	// default is the sink's own limit.
	// +optional
	// +kubebuilder:validation:Minimum=1024
	MaxExportBytes *int64 `json:"maxExportBytes,omitempty"`

	// deletionPolicy says what happens to exported data when the inventory
	// is deleted: Retain (the default) leaves it, Delete removes it from
	// snapshot stores and databases and sends a final empty snapshot to
	// event sinks.
	// +optional
	// +kubebuilder:default=Retain
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// history says how much snapshot history the bus keeps for replays and
	// backfills: revisions, maxAge, maxBytes. Unset fields keep the
	// operator's defaults; the operator's caps (100 revisions, 720h, 256Mi
	// by default) and the Scope's maxHistory cap them.
	// +optional
	History *History `json:"history,omitempty"`

	// suspend stops exports; snapshots resume from the current state.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
}

// KollectInventory rolls up the rows of every KollectTarget in its namespace
// into one canonical snapshot and delivers it to the bound sinks. One failing
// sink degrades only its binding; the others keep exporting.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=kinv,categories=kollect
// +kubebuilder:printcolumn:name="Items",type=integer,JSONPath=`.status.itemCount`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Synced",type=string,JSONPath=`.status.conditions[?(@.type=="Synced")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:printcolumn:name="Last Export",type=date,JSONPath=`.status.lastExportTime`
// +kubebuilder:printcolumn:name="Revisions",type=integer,JSONPath=`.status.history.revisions`,priority=1
// +kubebuilder:printcolumn:name="Bus Bytes",type=integer,JSONPath=`.status.history.bytes`,priority=1
// +kubebuilder:printcolumn:name="Suspended",type=boolean,JSONPath=`.spec.suspend`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KollectInventory struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says how rows roll up and where they go.
	// +optional
	// +kubebuilder:default={}
	Spec KollectInventorySpec `json:"spec,omitempty"`

	// status is written by the control service.
	// +optional
	Status InventoryStatus `json:"status,omitempty"`
}

// KollectInventoryList is a list of KollectInventories.
// +kubebuilder:object:root=true
type KollectInventoryList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the inventories.
	Items []KollectInventory `json:"items"`
}
