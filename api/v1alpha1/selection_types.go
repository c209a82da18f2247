package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WatchMode says whether objects are collected unless they opt out, or only
// when they opt in.
// +kubebuilder:validation:Enum=All;OptIn
type WatchMode string

const (
	// WatchModeAll collects every selected object unless it, or its
	// namespace, is labelled kollect.dev/watch=disabled.
	WatchModeAll WatchMode = "All"
	// WatchModeOptIn collects only objects labelled kollect.dev/watch=enabled
	// or in namespaces opted in by that label or the
	// kollect.dev/namespace-watch annotation.
	WatchModeOptIn WatchMode = "OptIn"
)

// NamespaceFilters narrow the namespaces a target collects from, beyond its
// namespaceSelector. The result is: namespaces matching namespaceSelector
// (all namespaces when it is absent) plus includedNamespaces, minus
// excludedNamespaces and namespaces matching namespaceExcludeSelector.
type NamespaceFilters struct {
	// includedNamespaces lists namespaces to collect from by name. Reaching
	// a namespace other than the target's own requires that the user who
	// creates the target may list the profile's kind there, and that the
	// namespace's KollectScope allows it.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	IncludedNamespaces []string `json:"includedNamespaces,omitempty"`

	// excludedNamespaces lists namespaces never collected from, whatever
	// else selects them.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	ExcludedNamespaces []string `json:"excludedNamespaces,omitempty"`

	// namespaceExcludeSelector excludes namespaces whose labels match it.
	// +optional
	NamespaceExcludeSelector *metav1.LabelSelector `json:"namespaceExcludeSelector,omitempty"`
}

// ObjectSelection chooses objects of the profile's kind inside the selected
// namespaces. labelSelector, names and resourceRules are OR-combined: an
// object matching any of them is collected. With none set, every object of
// the kind is collected. watchMode and the kollect.dev/watch label then apply
// on top.
type ObjectSelection struct {
	// labelSelector selects objects by their labels.
	// +optional
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`

	// names selects objects by name.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	Names []string `json:"names,omitempty"`

	// resourceRules are finer rules; an object matching any rule is
	// selected. Within one rule every set field must match.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	ResourceRules []ResourceRule `json:"resourceRules,omitempty"`

	// watchMode chooses between collecting everything selected unless it
	// opts out (All, the default) and collecting only what opts in (OptIn).
	// Opting in and out uses the label kollect.dev/watch=enabled|disabled on
	// objects and namespaces, and the annotation kollect.dev/namespace-watch
	// on namespaces. Precedence: object disabled, then object enabled, then
	// namespace disabled, then OptIn requires an enabled namespace or
	// object, then All collects.
	// +optional
	// +kubebuilder:default=All
	WatchMode WatchMode `json:"watchMode,omitempty"`
}

// ResourceRule selects objects by several criteria at once; every field that
// is set must match. At least one field must be set.
// +kubebuilder:validation:XValidation:rule="has(self.gvk) || has(self.namespaceSelector) || has(self.matchLabels) || has(self.matchExpressions) || has(self.matchPolicy)",message="a resource rule must set at least one of gvk, namespaceSelector, matchLabels, matchExpressions or matchPolicy"
type ResourceRule struct {
	// gvk restricts the rule to one kind. It must equal the profile's
	// targetGVK for the rule to match anything (checked at reconcile).
	// +optional
	GVK *GroupVersionKind `json:"gvk,omitempty"`

	// namespaceSelector restricts the rule to objects in namespaces whose
	// labels match.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// matchLabels requires these labels on the object.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	MatchLabels map[string]string `json:"matchLabels,omitempty"`

	// matchExpressions are label selector requirements on the object.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	MatchExpressions []metav1.LabelSelectorRequirement `json:"matchExpressions,omitempty"`

	// matchPolicy is a CEL expression over the variable `object` (the whole
	// object) that must return a bool, for example
	// `object.spec.replicas > 1`. It is compiled once per spec change; a
	// compile error is refused by the webhook and reported as InvalidSpec.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	MatchPolicy string `json:"matchPolicy,omitempty"`
}
