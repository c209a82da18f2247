package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KollectClusterTargetSpec binds a profile to objects across namespaces.
type KollectClusterTargetSpec struct {
	// profileRef names the KollectProfile, by namespace and name.
	// +required
	ProfileRef NamespacedObjectReference `json:"profileRef"`

	// namespaceSelector selects the namespaces to collect from by label. It
	// is required and must not be empty (set matchLabels or
	// matchExpressions): a cluster target never means "every namespace" by
	// omission.
	// +required
	// +kubebuilder:validation:XValidation:rule="(has(self.matchLabels) && size(self.matchLabels) > 0) || (has(self.matchExpressions) && size(self.matchExpressions) > 0)",message="namespaceSelector must set matchLabels or matchExpressions"
	NamespaceSelector metav1.LabelSelector `json:"namespaceSelector"`

	NamespaceFilters `json:",inline"`

	ObjectSelection `json:",inline"`

	// suspend stops collection: the target's rows are kept as they are
	// until it resumes.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
}

// KollectClusterTarget is the platform team's cross-namespace target: it
// binds a KollectProfile to objects in every namespace its required
// namespaceSelector matches. Its rows feed only KollectClusterInventories,
// never namespaced inventories.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=kctgt,categories=kollect
// +kubebuilder:printcolumn:name="Profile NS",type=string,JSONPath=`.spec.profileRef.namespace`
// +kubebuilder:printcolumn:name="Profile",type=string,JSONPath=`.spec.profileRef.name`
// +kubebuilder:printcolumn:name="Collected",type=integer,JSONPath=`.status.collectedCount`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:printcolumn:name="Failures",type=integer,JSONPath=`.status.extractionFailures`,priority=1
// +kubebuilder:printcolumn:name="Suspended",type=boolean,JSONPath=`.spec.suspend`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KollectClusterTarget struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says which objects to collect.
	// +required
	Spec KollectClusterTargetSpec `json:"spec"`

	// status is written by the control service.
	// +optional
	Status TargetStatus `json:"status,omitempty"`
}

// KollectClusterTargetList is a list of KollectClusterTargets.
// +kubebuilder:object:root=true
type KollectClusterTargetList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the cluster targets.
	Items []KollectClusterTarget `json:"items"`
}
