package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KollectConnectionTestSpec names the sink to probe. It is immutable: a new
// probe is a new object.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec is immutable; create a new KollectConnectionTest to probe again"
type KollectConnectionTestSpec struct {
	// sinkRef names the sink to probe, in the test's namespace.
	// +required
	SinkRef ConnectionTestSinkRef `json:"sinkRef"`

	// ownerSink makes the probed sink the test's owner: control sets an
	// ownerReference to the sink, so that deleting the sink deletes the
	// test with it (the established spelling; the TTL applies as well).
	// +optional
	OwnerSink bool `json:"ownerSink,omitempty"`

	// ttlSecondsAfterFinished is how long the test is kept after it
	// completes before control deletes it (default 300, at most 7 days).
	// +optional
	// +kubebuilder:default=300
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=604800
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
}

// ConnectionTestSinkRef names exactly one sink of one family.
// +kubebuilder:validation:XValidation:rule="[has(self.snapshotSinkRef), has(self.databaseSinkRef), has(self.eventSinkRef)].filter(x, x).size() == 1",message="set exactly one of snapshotSinkRef, databaseSinkRef and eventSinkRef"
type ConnectionTestSinkRef struct {
	// snapshotSinkRef is the name of a KollectSnapshotSink.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	SnapshotSinkRef string `json:"snapshotSinkRef,omitempty"`

	// databaseSinkRef is the name of a KollectDatabaseSink.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	DatabaseSinkRef string `json:"databaseSinkRef,omitempty"`

	// eventSinkRef is the name of a KollectEventSink.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	EventSinkRef string `json:"eventSinkRef,omitempty"`
}

// KollectConnectionTestStatus is the outcome of a probe.
type KollectConnectionTestStatus struct {
	// observedGeneration is the metadata.generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: ConnectionVerified (ConnectionOK, ConnectionTestFailed,
	// SecretResolveFailed) and Ready.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// completed is true once the probe finished, whatever its outcome.
	// +optional
	Completed bool `json:"completed,omitempty"`

	// completedAt is when the probe finished; the TTL counts from here.
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`

	// latencyMs is how long the probe took, in milliseconds.
	// +optional
	LatencyMs int64 `json:"latencyMs,omitempty"`
}

// KollectConnectionTest is a one-shot, audited probe of one sink: the sink's
// family exporter connects with the sink's credentials and reports the
// outcome. It is deleted ttlSecondsAfterFinished after completing.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=kconntest,categories=kollect
// +kubebuilder:printcolumn:name="Completed",type=boolean,JSONPath=`.status.completed`
// +kubebuilder:printcolumn:name="Verified",type=string,JSONPath=`.status.conditions[?(@.type=="ConnectionVerified")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="ConnectionVerified")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="ConnectionVerified")].message`,priority=1
// +kubebuilder:printcolumn:name="Latency (ms)",type=integer,JSONPath=`.status.latencyMs`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KollectConnectionTest struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec names the sink to probe.
	// +required
	Spec KollectConnectionTestSpec `json:"spec"`

	// status is written by the control service.
	// +optional
	Status KollectConnectionTestStatus `json:"status,omitempty"`
}

// KollectConnectionTestList is a list of KollectConnectionTests.
// +kubebuilder:object:root=true
type KollectConnectionTestList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the connection tests.
	Items []KollectConnectionTest `json:"items"`
}
