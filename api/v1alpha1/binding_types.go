package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SinkBinding binds one sink of a family to a KollectInventory. An entry is
// either the sink's name, or an object with the name and per-binding
// overrides:
//
//	snapshotSinkRefs:
//	- main-store                    # a name
//	- name: archive                 # an object
//	  exportMinInterval: 1h
//
// The sink lives in the inventory's namespace. An entry that is neither a
// name nor an object with a name is refused by the validating webhook and
// reported as InvalidSpec at reconcile (the schema cannot type a
// string-or-object value; see docs/api-decisions.md).
//
// +kubebuilder:validation:Type=""
// +kubebuilder:pruning:PreserveUnknownFields
type SinkBinding struct {
	// name of the sink, a KollectSnapshotSink, KollectDatabaseSink or
	// KollectEventSink (by the list the entry is in) in the inventory's
	// namespace.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// exportMinInterval overrides, for this binding only, the sink's and the
	// inventory's exportMinInterval: the period of re-exports of an
	// unchanged snapshot. A Go duration between 0s and 24h ("30s", "5m",
	// "1h"); the upper bound is checked by the webhook and at reconcile.
	// Other than 0 (on change only), at least the operator's minimum
	// (--min-export-interval, 10s by default) and a KollectScope's.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	ExportMinInterval *metav1.Duration `json:"exportMinInterval,omitempty"`

	// maxExportBytes overrides, for this binding only, the inventory's
	// maxExportBytes: the largest single message or file part the sink is
	// sent. At least 1024.
	// +optional
	// +kubebuilder:validation:Minimum=1024
	MaxExportBytes *int64 `json:"maxExportBytes,omitempty"`

	// enc remembers how the entry was written so that it re-encodes to
	// the same JSON (no spurious spec change on an update).
	enc bindingEncoding `json:"-"`
}

// ClusterSinkBinding binds one sink of a family to a
// KollectClusterInventory. An entry is either the sink's name, meaning the
// sink of that name in the inventory's sinkNamespace, or an object with the
// name, an optional namespace and per-binding overrides:
//
//	snapshotSinkRefs:
//	- fleet-store                   # kollect-system/fleet-store by default
//	- name: platform-archive
//	  namespace: platform
//	  exportMinInterval: 15m
//
// +kubebuilder:validation:Type=""
// +kubebuilder:pruning:PreserveUnknownFields
type ClusterSinkBinding struct {
	// name of the sink, a KollectSnapshotSink, KollectDatabaseSink or
	// KollectEventSink (by the list the entry is in).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// namespace of the sink. Defaults to the inventory's sinkNamespace. A
	// KollectClusterScope's allowedStaticRefNamespaces limits which
	// namespaces may be named.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`

	// exportMinInterval overrides, for this binding only, the sink's and the
	// inventory's exportMinInterval. A Go duration between 0s and 24h; the
	// upper bound is checked by the webhook and at reconcile. Other than 0
	// (on change only), at least the operator's minimum
	// (--min-export-interval, 10s by default) and a KollectScope's.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	ExportMinInterval *metav1.Duration `json:"exportMinInterval,omitempty"`

	// maxExportBytes is, for this binding, the largest single message or
	// file part the sink is sent. At least 1024.
	// +optional
	// +kubebuilder:validation:Minimum=1024
	MaxExportBytes *int64 `json:"maxExportBytes,omitempty"`

	// enc remembers how the entry was written; see SinkBinding.
	enc bindingEncoding `json:"-"`
}
