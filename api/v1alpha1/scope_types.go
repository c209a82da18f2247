package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KollectScopeSpec holds a namespace's ceilings: the rules a
// KollectClusterScope shares, and the namespace's quotas.
type KollectScopeSpec struct {
	// The rules of the namespace's Profiles, Targets, Inventories and sinks.
	ScopeRules `json:",inline"`

	// The quotas of the namespace.
	ScopeQuotas `json:",inline"`
}

// ScopeQuotas tighten, for one namespace, the operator's per-namespace
// quotas. Each only tightens: a value above the operator's is ignored in
// favour of the operator's; an unset field keeps the operator's.
type ScopeQuotas struct {
	// maxInventories is the most KollectInventories the namespace may hold
	// (the operator's --max-inventories-per-namespace, 50 by default, when
	// lower or when this is unset). Admission refuses one more; at
	// reconcile the newest inventories over it (by creation time, then
	// name) are Ready=False with reason QuotaExceeded and do not export.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxInventories *int32 `json:"maxInventories,omitempty"`

	// maxBindings is the most sink bindings (sink refs of every family)
	// the namespace's inventories may hold together (the operator's
	// --max-bindings-per-namespace, 200 by default, when lower or when
	// this is unset). Admission refuses an inventory that would pass it; at
	// reconcile an inventory whose bindings, added to those of the older
	// ones, pass it is Ready=False with reason QuotaExceeded and does not
	// export.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxBindings *int32 `json:"maxBindings,omitempty"`

	// maxReplays is the most KollectReplays of the namespace in flight
	// (neither Succeeded nor Failed) at once (the operator's
	// --max-replays-per-namespace, 4 by default, when lower or when this is
	// unset). Admission refuses one more; a replay over it (the newest
	// first) stays Pending with reason QuotaExceeded and starts when one
	// finishes.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxReplays *int32 `json:"maxReplays,omitempty"`

	// maxNamespaceBusBytes bounds every byte the namespace's inventories
	// keep on the bus together (snapshot events, the objects they
	// reference, dead letters), at least 1Mi. The aggregator enforces the
	// lower of this and the operator's quota (--namespace-bus-bytes).
	// +optional
	// +kubebuilder:validation:XValidation:rule="quantity(string(self)).compareTo(quantity('1Mi')) >= 0",message="maxNamespaceBusBytes must be at least 1Mi"
	MaxNamespaceBusBytes *resource.Quantity `json:"maxNamespaceBusBytes,omitempty"`

	// maxNamespaceRevisions bounds the distinct snapshot revisions all of
	// the namespace's inventories retain together. The aggregator enforces
	// the lower of this and the operator's quota
	// (--namespace-history-revisions).
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxNamespaceRevisions *int64 `json:"maxNamespaceRevisions,omitempty"`
}

// ScopeRules are the ceilings a Scope sets. Every list follows one rule: an
// absent list means no restriction, a present empty list allows nothing.
type ScopeRules struct {
	// allowedGVKs are the kinds Profiles may target.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=256
	AllowedGVKs []AllowedGVK `json:"allowedGVKs,omitzero"`

	// allowedNamespaces are the namespaces targets may collect from.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	AllowedNamespaces []string `json:"allowedNamespaces,omitzero"`

	// deniedNamespaces are namespaces targets may never collect from; they
	// win over allowedNamespaces.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	DeniedNamespaces []string `json:"deniedNamespaces,omitzero"`

	// minExportInterval is the floor for every exportMinInterval (of
	// inventories, sinks and bindings) in scope, between 0s and 24h.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('24h')",message="minExportInterval must be between 0s and 24h"
	MinExportInterval *metav1.Duration `json:"minExportInterval,omitempty"`

	// maxHistory caps the snapshot history of every inventory in scope:
	// an inventory's spec.history (or the operator's default) above a field
	// here is lowered to it. Admission rejects a spec.history above the cap;
	// an inventory admitted before the Scope is clamped, and its Ready
	// message says so. It only tightens the operator's cap (control's
	// --history-max-revisions, --history-max-age, --history-max-bytes): a
	// field above it keeps the operator's.
	// +optional
	MaxHistory *History `json:"maxHistory,omitempty"`

	// sinkRefs are the names of sinks of any family (KollectSnapshotSinks,
	// KollectDatabaseSinks, KollectEventSinks) inventories may bind: the
	// established spelling. A name here is allowed in every family; when
	// sinkRefs is present, a family whose own list is absent allows only
	// these names (see SinkAllowLists).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	SinkRefs []string `json:"sinkRefs,omitzero"`

	// snapshotSinkRefs are the names of the KollectSnapshotSinks
	// inventories may bind.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	SnapshotSinkRefs []string `json:"snapshotSinkRefs,omitzero"`

	// databaseSinkRefs are the names of the KollectDatabaseSinks
	// inventories may bind.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	DatabaseSinkRefs []string `json:"databaseSinkRefs,omitzero"`

	// eventSinkRefs are the names of the KollectEventSinks inventories may
	// bind.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	EventSinkRefs []string `json:"eventSinkRefs,omitzero"`
}

// AllowedGVK matches kinds a Scope allows.
type AllowedGVK struct {
	// group of the kind; empty means the core group.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$`
	Group string `json:"group,omitempty"`

	// version of the kind; empty matches every version.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$`
	Version string `json:"version,omitempty"`

	// kind, for example Deployment.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z][A-Za-z0-9]*$`
	Kind string `json:"kind"`
}

// ScopeStatus is the observed state of a Scope.
type ScopeStatus struct {
	// observedGeneration is the metadata.generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready (False with ScopeConflict when another Scope is
	// honoured instead).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// KollectScope is the ceiling for one team namespace: the kinds its Profiles
// may target, the namespaces its Targets may reach, the sinks its
// Inventories may bind, the shortest export interval, the history kept and
// the namespace's quotas (inventories, bindings, replays in flight, bus
// bytes and revisions), which may only tighten the operator's. It is enforced at
// admission and again at reconcile, so a Scope created later degrades what
// it forbids. At most one Scope per namespace is honoured (the oldest); any
// other is Ready=False.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=kscope,categories=kollect
// +kubebuilder:printcolumn:name="Min Interval",type=string,JSONPath=`.spec.minExportInterval`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KollectScope struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the ceilings and quotas.
	// +optional
	// +kubebuilder:default={}
	Spec KollectScopeSpec `json:"spec,omitempty"`

	// status is written by the control service.
	// +optional
	Status ScopeStatus `json:"status,omitempty"`
}

// KollectScopeList is a list of KollectScopes.
// +kubebuilder:object:root=true
type KollectScopeList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the scopes.
	Items []KollectScope `json:"items"`
}
