package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SinkCommon holds the fields every sink family shares. The endpoint is
// declared by each family, since whether it is required differs.
type SinkCommon struct {
	// secretRef names the Secret holding the sink's credentials; which keys
	// are read depends on the type (see the type's block). The Secret lives
	// in the sink's namespace unless the operator allows cross-namespace
	// Secret references.
	// +optional
	SecretRef *SecretReference `json:"secretRef,omitempty"`

	// tls configures certificate verification for TLS connections to the
	// sink.
	// +optional
	TLS *TLSConfig `json:"tls,omitempty"`

	// connectionTest (default true) probes the sink when it is created or
	// its spec changes, and reports the result in the ConnectionVerified
	// condition. The annotation kollect.dev/test-connection: "true" asks
	// for one more probe.
	// +optional
	// +kubebuilder:default=true
	ConnectionTest *bool `json:"connectionTest,omitempty"`

	// cluster is the fleet partition key (default "default"): every
	// cluster of a fleet writes to shared sinks under its own cluster
	// name, in paths, keys and columns.
	// +optional
	// +kubebuilder:default=default
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Cluster string `json:"cluster,omitempty"`

	// exportMinInterval is this sink's default period of re-exports of an
	// unchanged snapshot, between 0s and 24h. It overrides the inventory's
	// and is overridden by a binding's. Other than 0 (on change only), at
	// least the operator's minimum (--min-export-interval, 10s by default)
	// and a KollectScope's.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s') && duration(self) <= duration('24h')",message="exportMinInterval must be between 0s and 24h"
	ExportMinInterval *metav1.Duration `json:"exportMinInterval,omitempty"`

	// provisioning says whether Kollect creates what it writes into
	// (mode ensure, the default) or expects it to exist (existing).
	// +optional
	Provisioning *Provisioning `json:"provisioning,omitempty"`

	// options are non-secret pass-through tuning settings of the backend,
	// by name (for example statement_timeout: "30000"). Each type honours
	// the options its page of docs/sinks lists (see spec.type; most none
	// yet): any other name, and any name that looks like a credential, is
	// refused.
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	// +kubebuilder:validation:XValidation:rule="self.all(k, k.matches('^[A-Za-z][A-Za-z0-9_.-]{0,62}$'))",message="options names are letters, digits, '_', '.' and '-', starting with a letter, at most 63 characters"
	Options map[string]string `json:"options,omitempty"`
}

// SecretReference names a Secret.
type SecretReference struct {
	// name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// namespace of the Secret, default the sink's. Another namespace is
	// refused unless the operator allows cross-namespace Secret references.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`
}

// SecretKeyReference names one key of a Secret in the sink's namespace.
type SecretKeyReference struct {
	// name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// key in the Secret's data.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key"`
}

// TLSConfig configures certificate verification.
// +kubebuilder:validation:XValidation:rule="!(has(self.caBundle) && has(self.caSecretRef))",message="set caBundle or caSecretRef, not both",fieldPath=".caSecretRef"
// +kubebuilder:validation:XValidation:rule="!(has(self.insecureSkipVerify) && self.insecureSkipVerify) || !(has(self.caBundle) || has(self.caSecretRef))",message="insecureSkipVerify cannot be combined with a CA (caBundle or caSecretRef)",fieldPath=".insecureSkipVerify"
type TLSConfig struct {
	// insecureSkipVerify turns certificate verification off. The sink then
	// carries the condition TLSInsecure=True. Not for production.
	// +optional
	InsecureSkipVerify bool `json:"insecureSkipVerify,omitempty"`

	// caBundle is a PEM bundle of CA certificates to trust instead of the
	// system roots.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=262144
	CABundle string `json:"caBundle,omitempty"`

	// caSecretRef names a Secret key holding a PEM CA bundle to trust
	// instead of the system roots.
	// +optional
	CASecretRef *SecretKeyReference `json:"caSecretRef,omitempty"`
}

// ProvisioningMode says whether a sink creates its destination.
// +kubebuilder:validation:Enum=ensure;existing
type ProvisioningMode string

// Provisioning modes.
const (
	// ProvisionEnsure creates what is missing (a table and its indexes, a
	// stream, a bucket, an empty repository's first branch) and leaves what
	// exists.
	ProvisionEnsure ProvisioningMode = "ensure"
	// ProvisionExisting never creates anything; a missing destination is a
	// permanent error naming what is missing.
	ProvisionExisting ProvisioningMode = "existing"
)

// Provisioning says whether Kollect creates the sink's destination.
type Provisioning struct {
	// mode is ensure (the default: create what is missing) or existing
	// (never create; report what is missing).
	// +optional
	// +kubebuilder:default=ensure
	Mode ProvisioningMode `json:"mode,omitempty"`
}

// SinkStatus is the observed state of a sink.
type SinkStatus struct {
	// observedGeneration is the metadata.generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready; ConnectionVerified with reasons ConnectionOK,
	// ConnectionTestFailed, SecretResolveFailed; TLSInsecure when
	// certificate verification is off.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}
