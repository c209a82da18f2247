package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KollectClusterScopeSpec holds the ceilings for cluster kinds.
type KollectClusterScopeSpec struct {
	// The same ceilings as a KollectScope, applied to
	// KollectClusterTargets and KollectClusterInventories. Sink allow lists
	// name sinks in any namespace allowedStaticRefNamespaces permits.
	ScopeRules `json:",inline"`

	// allowedStaticRefNamespaces are the namespaces cluster kinds may name
	// in references: a cluster target's profileRef.namespace, a cluster
	// inventory's sinkNamespace and its sink refs' namespace. Absent means
	// no restriction, empty allows none.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	AllowedStaticRefNamespaces []string `json:"allowedStaticRefNamespaces,omitzero"`
}

// KollectClusterScope is the ceiling for cluster kinds (KollectClusterTarget,
// KollectClusterInventory): kinds, namespaces, sinks, the shortest export
// interval and the namespaces they may reference. At most one is honoured
// (the oldest); any other is Ready=False.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=kcscope,categories=kollect
// +kubebuilder:printcolumn:name="Min Interval",type=string,JSONPath=`.spec.minExportInterval`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KollectClusterScope struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the ceilings.
	// +optional
	// +kubebuilder:default={}
	Spec KollectClusterScopeSpec `json:"spec,omitempty"`

	// status is written by the control service.
	// +optional
	Status ScopeStatus `json:"status,omitempty"`
}

// KollectClusterScopeList is a list of KollectClusterScopes.
// +kubebuilder:object:root=true
type KollectClusterScopeList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the cluster scopes.
	Items []KollectClusterScope `json:"items"`
}
