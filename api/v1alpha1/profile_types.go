package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KollectProfileSpec says what to extract from objects of one kind.
// +kubebuilder:validation:XValidation:rule="!has(self.attributes) || !self.attributes.exists(a, a.path.startsWith('helm:')) || ((!has(self.targetGVK.group) || size(self.targetGVK.group) == 0) && self.targetGVK.version == 'v1' && self.targetGVK.kind == 'Secret')",message="helm:release paths need targetGVK to be the core v1 Secret (group \"\", version v1, kind Secret)",fieldPath=".attributes"
// +kubebuilder:validation:XValidation:rule="!has(self.export) || !has(self.export.mode) || self.export.mode != 'Resource' || !has(self.attributes) || !self.attributes.exists(a, a.name == (has(self.export.as) ? self.export.as : 'resource'))",message="export.as must not equal the name of an attribute",fieldPath=".export.as"
// +kubebuilder:validation:XValidation:rule="!has(self.metrics) || self.metrics.all(m, has(self.attributes) && self.attributes.exists(a, a.name == m.path))",message="every metrics[].path must name an attribute",fieldPath=".metrics"
// +kubebuilder:validation:XValidation:rule="!has(self.metrics) || self.metrics.all(m, !has(m.labels) || m.labels.all(l, has(self.attributes) && self.attributes.exists(a, a.name == l)))",message="every metrics[].labels entry must name an attribute",fieldPath=".metrics"
type KollectProfileSpec struct {
	// targetGVK is the kind the profile extracts from.
	// +required
	TargetGVK GroupVersionKind `json:"targetGVK"`

	// attributes are the values extracted from each object into the row's
	// attributes, keyed by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=128
	Attributes []Attribute `json:"attributes,omitempty"`

	// export embeds the object itself (pruned and redacted) in each row,
	// next to the attributes.
	// +optional
	Export *ProfileExport `json:"export,omitempty"`

	// metrics are gauges the collector exposes from attribute values.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	Metrics []ProfileMetric `json:"metrics,omitempty"`
}

// KollectProfileStatus is the observed state of a KollectProfile.
type KollectProfileStatus struct {
	// observedGeneration is the metadata.generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready (False with InvalidSpec when an expression does not
	// compile).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// KollectProfile says what to extract from objects of one kind (GVK): named
// attributes by JSONPath, CEL or Helm release decoding, optionally the object
// itself, and optional metrics. KollectTargets bind it to objects.
//
// Reading Secret data needs the annotation
// kollect.dev/allow-secret-extraction: "true"; exporting whole Secrets
// (export.mode Resource) needs kollect.dev/allow-full-resource-export: "true",
// and their data stays redacted unless export.include is All as well.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=kprof,categories=kollect
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.spec.targetGVK.kind`
// +kubebuilder:printcolumn:name="Group",type=string,JSONPath=`.spec.targetGVK.group`,priority=1
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KollectProfile struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says what to extract.
	// +required
	Spec KollectProfileSpec `json:"spec"`

	// status is written by the control service.
	// +optional
	Status KollectProfileStatus `json:"status,omitempty"`
}

// KollectProfileList is a list of KollectProfiles.
// +kubebuilder:object:root=true
type KollectProfileList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the profiles.
	Items []KollectProfile `json:"items"`
}
