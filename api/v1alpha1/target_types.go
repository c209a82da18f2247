package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KollectTargetSpec binds a profile to the objects it extracts from.
type KollectTargetSpec struct {
	// profileRef names the KollectProfile in the target's namespace: its
	// name (profileRef: deployment-images) or an object with the name
	// (profileRef: {name: deployment-images}).
	// +required
	ProfileRef ProfileReference `json:"profileRef"`

	// namespaceSelector selects namespaces by label. When it and every
	// other namespace filter are absent, the target collects from every
	// namespace, which is admitted only when the requesting user may list
	// the profile's kind cluster-wide and the namespace's KollectScope
	// allows it. A team that may list only its own namespace writes
	// includedNamespaces: [<own namespace>].
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	NamespaceFilters `json:",inline"`

	ObjectSelection `json:",inline"`

	// suspend stops collection: the target's rows are kept as they are
	// until it resumes.
	// +optional
	Suspend bool `json:"suspend,omitempty"`

	// serviceAccountName is the ServiceAccount of the target's namespace
	// whose permissions bound what the target may collect: control checks,
	// at every reconcile and periodically, that it may list the profile's
	// kind in each selected namespace (cluster-wide for all-namespace and
	// cluster-scoped selections), and the collector collects only from the
	// namespaces that passed. Defaults to the operator's
	// --default-service-account (kollect). The ServiceAccount need not
	// exist: only the RBAC bound to its name counts.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
}

// TargetStatus is the observed state of a KollectTarget or
// KollectClusterTarget.
type TargetStatus struct {
	// observedGeneration is the metadata.generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready, and Degraded with reasons ProfileNotFound,
	// ScopeGVKDenied, ScopeNamespaceDenied, Suspended, ExtractionFailed,
	// Forbidden.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// collectedCount is the number of objects the target currently has
	// rows for, kept current as objects come and go.
	// +optional
	CollectedCount int64 `json:"collectedCount,omitempty"`

	// extractionFailures counts objects whose required attributes failed to
	// evaluate in the current generation.
	// +optional
	ExtractionFailures int64 `json:"extractionFailures,omitempty"`

	// lastExtractionError is the most recent extraction error, naming the
	// object and attribute.
	// +optional
	LastExtractionError string `json:"lastExtractionError,omitempty"`

	// matchedNamespaces are the namespaces the target currently collects
	// from.
	// +optional
	// +listType=set
	MatchedNamespaces []string `json:"matchedNamespaces,omitempty"`
}

// KollectTarget binds a KollectProfile to objects: which namespaces, which
// objects of the profile's kind. Each collected object becomes one row in the
// inventories of the target's namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=ktgt,categories=kollect
// +kubebuilder:printcolumn:name="Profile",type=string,JSONPath=`.spec.profileRef.name`
// +kubebuilder:printcolumn:name="Collected",type=integer,JSONPath=`.status.collectedCount`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:printcolumn:name="Failures",type=integer,JSONPath=`.status.extractionFailures`,priority=1
// +kubebuilder:printcolumn:name="Suspended",type=boolean,JSONPath=`.spec.suspend`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KollectTarget struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says which objects to collect.
	// +required
	Spec KollectTargetSpec `json:"spec"`

	// status is written by the control service.
	// +optional
	Status TargetStatus `json:"status,omitempty"`
}

// KollectTargetList is a list of KollectTargets.
// +kubebuilder:object:root=true
type KollectTargetList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the targets.
	Items []KollectTarget `json:"items"`
}
