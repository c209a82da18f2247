package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DedupeMode says how a cluster inventory treats one object collected by
// several cluster targets.
// +kubebuilder:validation:Enum=keepAll;byResourceUID
type DedupeMode string

// Dedupe modes.
const (
	// DedupeKeepAll keeps one row per (target, object).
	DedupeKeepAll DedupeMode = "keepAll"
	// DedupeByResourceUID keeps one row per object uid, from the first
	// target in name order.
	DedupeByResourceUID DedupeMode = "byResourceUID"
)

// KollectClusterInventorySpec says which cluster targets roll up and where
// they go.
// +kubebuilder:validation:XValidation:rule="has(self.targetRefs) || has(self.targetSelector)",message="set targetRefs or targetSelector (or both)",fieldPath=".targetRefs"
type KollectClusterInventorySpec struct {
	// targetRefs names KollectClusterTargets whose rows roll up here. With
	// targetSelector also set, targets matching either are used.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	TargetRefs []string `json:"targetRefs,omitempty"`

	// targetSelector selects KollectClusterTargets by label.
	// +optional
	TargetSelector *metav1.LabelSelector `json:"targetSelector,omitempty"`

	// namespaceSelector keeps only rows of objects in namespaces whose
	// labels match. With namespaces also set, a namespace matching either
	// is kept. With neither, rows from every namespace the targets collect
	// are kept.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// namespaces keeps only rows of objects in these namespaces (see
	// namespaceSelector).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespaces []string `json:"namespaces,omitempty"`

	// sinkNamespace is where sinks named without a namespace live (default
	// kollect-system).
	// +optional
	// +kubebuilder:default=kollect-system
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	SinkNamespace string `json:"sinkNamespace,omitempty"`

	// snapshotSinkRefs bind KollectSnapshotSinks. Each entry is a sink name
	// (in sinkNamespace) or an object {name, namespace, exportMinInterval,
	// maxExportBytes}. At most 20.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	SnapshotSinkRefs []ClusterSinkBinding `json:"snapshotSinkRefs,omitempty"`

	// databaseSinkRefs bind KollectDatabaseSinks, in the same form as
	// snapshotSinkRefs. At most 20.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	DatabaseSinkRefs []ClusterSinkBinding `json:"databaseSinkRefs,omitempty"`

	// eventSinkRefs bind KollectEventSinks, in the same form as
	// snapshotSinkRefs. At most 20.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	EventSinkRefs []ClusterSinkBinding `json:"eventSinkRefs,omitempty"`

	// exportMinInterval is the period of re-exports of an unchanged
	// snapshot (default 30s, between 0s and 24h); changes export at once.
	// +optional
	// +kubebuilder:default="30s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('24h')",message="exportMinInterval must be between 0s and 24h"
	ExportMinInterval *metav1.Duration `json:"exportMinInterval,omitempty"`

	// dedupe is keepAll (the default: one row per target and object) or
	// byResourceUID (one row per object, when several targets collect it).
	// +optional
	// +kubebuilder:default=keepAll
	Dedupe DedupeMode `json:"dedupe,omitempty"`

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

// KollectClusterInventoryStatus is the observed state of a
// KollectClusterInventory.
type KollectClusterInventoryStatus struct {
	InventoryStatus `json:",inline"`

	// targetCount is the number of cluster targets rolled up.
	// +optional
	TargetCount int64 `json:"targetCount,omitempty"`

	// namespaceShards summarise the latest snapshot per source namespace.
	// +optional
	// +listType=map
	// +listMapKey=namespace
	NamespaceShards []NamespaceShard `json:"namespaceShards,omitempty"`
}

// NamespaceShard is the part of a cluster snapshot from one namespace.
type NamespaceShard struct {
	// namespace of the source objects.
	// +required
	Namespace string `json:"namespace"`
	// itemCount is the number of rows from the namespace.
	// +optional
	ItemCount int64 `json:"itemCount,omitempty"`
	// checksum is an order-independent digest of the namespace's rows: the
	// sum of their sha256 (of the canonical JSON) modulo 2^256, hex. It
	// changes exactly when one of the namespace's rows does.
	// +optional
	Checksum string `json:"checksum,omitempty"`
}

// KollectClusterInventory rolls up the rows of KollectClusterTargets, with
// optional dedupe, into one snapshot per cluster inventory and delivers it to
// the bound sinks. Rows of cluster kinds never reach namespaced inventories.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=kcinv,categories=kollect
// +kubebuilder:printcolumn:name="Targets",type=integer,JSONPath=`.status.targetCount`
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
type KollectClusterInventory struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says which cluster targets roll up and where they go.
	// +required
	Spec KollectClusterInventorySpec `json:"spec"`

	// status is written by the control service.
	// +optional
	Status KollectClusterInventoryStatus `json:"status,omitempty"`
}

// KollectClusterInventoryList is a list of KollectClusterInventories.
// +kubebuilder:object:root=true
type KollectClusterInventoryList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the cluster inventories.
	Items []KollectClusterInventory `json:"items"`
}
