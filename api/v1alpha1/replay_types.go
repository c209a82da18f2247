package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KollectReplaySpec says which retained revisions of an inventory to
// deliver again, and to which sink. It is immutable: a new replay is a new
// object.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable; create a new KollectReplay to replay again"
// +kubebuilder:validation:XValidation:rule="[has(self.revision), has(self.at), has(self.backfill)].filter(x, x).size() <= 1",message="set at most one of revision, at and backfill"
type KollectReplaySpec struct {
	// inventoryRef names the inventory whose history is replayed: a
	// KollectInventory of the replay's namespace, or a
	// KollectClusterInventory, which needs a grant (see clusterInventory in
	// docs/replay.md).
	// +required
	InventoryRef ReplayInventoryRef `json:"inventoryRef"`

	// sink is the binding to deliver to, as in the inventory's
	// status.sinkExports: FAMILY/NAME (snapshot, database or event) for a
	// KollectInventory, FAMILY/NAMESPACE/NAME for a
	// KollectClusterInventory. The inventory must bind it.
	// +required
	// +kubebuilder:validation:MaxLength=320
	// +kubebuilder:validation:Pattern=`^(snapshot|database|event)/([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Sink string `json:"sink"`

	// revision replays one retained revision.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Revision *int64 `json:"revision,omitempty"`

	// at replays the latest retained revision created at or before this
	// time (RFC 3339).
	// +optional
	At *metav1.Time `json:"at,omitempty"`

	// backfill delivers every retained revision in the range, oldest first,
	// each only after the sink acknowledged the one before: to fill a new
	// sink (a database's history table, a repository's branch) with the history the
	// bus still holds. The newest snapshot follows on the next change or
	// periodic export. With none of revision, at and backfill the latest
	// revision is replayed.
	// +optional
	Backfill *ReplayRange `json:"backfill,omitempty"`
}

// ReplayInventoryRef names an inventory of either kind.
type ReplayInventoryRef struct {
	// kind is KollectInventory (the default) or KollectClusterInventory.
	// +optional
	// +kubebuilder:default=KollectInventory
	// +kubebuilder:validation:Enum=KollectInventory;KollectClusterInventory
	Kind string `json:"kind,omitempty"`

	// name of the inventory.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`
}

// ReplayRange bounds a backfill by revision; both ends are inclusive and
// optional (every retained revision when both are unset).
// +kubebuilder:validation:XValidation:rule="!has(self.fromRevision) || !has(self.toRevision) || self.fromRevision <= self.toRevision",message="fromRevision must not be above toRevision"
type ReplayRange struct {
	// fromRevision is the first revision delivered; older retained
	// revisions are skipped.
	// +optional
	// +kubebuilder:validation:Minimum=1
	FromRevision *int64 `json:"fromRevision,omitempty"`

	// toRevision is the last revision delivered.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ToRevision *int64 `json:"toRevision,omitempty"`
}

// ReplayPhase is where a replay is.
// +kubebuilder:validation:Enum=Pending;Running;Succeeded;Failed
type ReplayPhase string

// Replay phases.
const (
	// ReplayPending: accepted, not started yet.
	ReplayPending ReplayPhase = "Pending"
	// ReplayRunning: revisions are being delivered.
	ReplayRunning ReplayPhase = "Running"
	// ReplaySucceeded: every selected revision was delivered.
	ReplaySucceeded ReplayPhase = "Succeeded"
	// ReplayFailed: the replay stopped; conditions and lastError say why.
	ReplayFailed ReplayPhase = "Failed"
)

// KollectReplayStatus is the progress of a replay.
type KollectReplayStatus struct {
	// observedGeneration is the metadata.generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready (True once Succeeded; False with ReplayFailed,
	// InventoryNotFound, SinkNotFound, Forbidden or InvalidSpec).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// phase is Pending, Running, Succeeded or Failed.
	// +optional
	Phase ReplayPhase `json:"phase,omitempty"`

	// revisionsTotal is how many revisions the replay delivers.
	// +optional
	RevisionsTotal int64 `json:"revisionsTotal,omitempty"`

	// revisionsDone is how many the sink acknowledged so far.
	// +optional
	RevisionsDone int64 `json:"revisionsDone,omitempty"`

	// lastRevision is the last revision the sink acknowledged.
	// +optional
	LastRevision int64 `json:"lastRevision,omitempty"`

	// startTime is when delivery started.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// completionTime is when the replay succeeded or failed.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// lastError is the failure that stopped the replay, one line.
	// +optional
	LastError string `json:"lastError,omitempty"`
}

// KollectReplay delivers retained snapshot revisions of an inventory to one
// of its sinks again: one revision, the one current at a time, or every
// retained revision in order (a backfill). Control validates it and owns
// its status; the aggregator delivers the revisions and reports progress.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=kreplay,categories=kollect
// +kubebuilder:printcolumn:name="Inventory",type=string,JSONPath=`.spec.inventoryRef.name`
// +kubebuilder:printcolumn:name="Sink",type=string,JSONPath=`.spec.sink`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Done",type=integer,JSONPath=`.status.revisionsDone`
// +kubebuilder:printcolumn:name="Total",type=integer,JSONPath=`.status.revisionsTotal`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KollectReplay struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says what to replay and where.
	// +required
	Spec KollectReplaySpec `json:"spec"`

	// status is written by the control service.
	// +optional
	Status KollectReplayStatus `json:"status,omitempty"`
}

// KollectReplayList is a list of KollectReplays.
// +kubebuilder:object:root=true
type KollectReplayList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the replays.
	Items []KollectReplay `json:"items"`
}
