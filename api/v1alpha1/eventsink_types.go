package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EventSinkType is the kind of bus an event sink publishes to.
// +kubebuilder:validation:Enum=kafka;nats
type EventSinkType string

// Event sink types.
const (
	EventKafka EventSinkType = "kafka"
	EventNATS  EventSinkType = "nats"
)

// KollectEventSinkSpec describes a Kafka topic or NATS subject that receives
// inventory snapshots as messages.
//
// +kubebuilder:validation:XValidation:rule="!has(self.kafka) || self.type == 'kafka'",message="kafka is allowed only when type is kafka",fieldPath=".kafka"
// +kubebuilder:validation:XValidation:rule="!has(self.nats) || self.type == 'nats'",message="nats is allowed only when type is nats",fieldPath=".nats"
// +kubebuilder:validation:XValidation:rule="self.type != 'kafka' || has(self.kafka)",message="kafka is required when type is kafka (kafka.topic has no default)",fieldPath=".kafka"
// +kubebuilder:validation:XValidation:rule="self.type != 'nats' || has(self.nats)",message="nats is required when type is nats (nats.subject has no default)",fieldPath=".nats"
// +kubebuilder:validation:XValidation:rule="self.type != 'kafka' || !has(self.kafka) || (has(self.endpoint) != has(self.kafka.brokers))",message="set exactly one of endpoint and kafka.brokers",fieldPath=".kafka.brokers"
// +kubebuilder:validation:XValidation:rule="self.type != 'nats' || !has(self.nats) || (has(self.endpoint) != has(self.nats.url))",message="set exactly one of endpoint and nats.url",fieldPath=".nats.url"
// +kubebuilder:validation:XValidation:rule="!has(self.kafka) || !has(self.kafka.sasl) || has(self.secretRef)",message="kafka.sasl needs secretRef, the Secret holding username and password",fieldPath=".secretRef"
type KollectEventSinkSpec struct {
	// type is kafka or nats.
	// +required
	Type EventSinkType `json:"type"`

	// endpoint locates the bus when kafka.brokers or nats.url is not used:
	// one bootstrap broker host:port for kafka, a nats://, tls:// or ws(s)://
	// URL for nats. It never carries credentials. The address is checked
	// against private and link-local ranges at admission and on every
	// connection.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^[^\s]+$`
	// +kubebuilder:validation:XValidation:rule="!self.matches('^https?://[^/]*@') && !self.matches('^[A-Za-z][A-Za-z0-9+.-]*://[^/@]*:[^/@]*@')",message="endpoint must not carry credentials; put them in the Secret named by secretRef"
	Endpoint string `json:"endpoint,omitempty"`

	SinkCommon `json:",inline"`

	// serialization of messages; event sinks take json only.
	// +optional
	Serialization *JSONSerialization `json:"serialization,omitempty"`

	// kafka holds settings of type kafka; required for that type. Secret
	// keys: username, password (for SASL).
	// +optional
	Kafka *KafkaSink `json:"kafka,omitempty"`

	// nats holds settings of type nats; required for that type. Secret
	// keys: token, or username and password.
	// +optional
	NATS *NATSSink `json:"nats,omitempty"`
}

// KafkaSink holds the settings of a kafka sink.
type KafkaSink struct {
	// brokers are bootstrap brokers, host:port. Set these or endpoint.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=261
	// +kubebuilder:validation:items:Pattern=`^[^\s/:@]+:[0-9]{1,5}$`
	Brokers []string `json:"brokers,omitempty"`

	// topic receiving one record per export (or per part), keyed
	// <cluster>/<namespace>/<inventory>.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=249
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._-]+$`
	Topic string `json:"topic"`

	// sasl authenticates with the Secret's username and password.
	// +optional
	SASL *KafkaSASL `json:"sasl,omitempty"`

	// tls connects to the brokers over TLS; spec.tls configures
	// verification. Default false, or true when spec.tls is set.
	// +optional
	TLS *bool `json:"tls,omitempty"`

	// mode is snapshot (default: one record per export, or per part,
	// holding the envelope) or perRow (one record per changed row keyed
	// <cluster>/<namespace>/<inventory>/<uid>, and a null-value tombstone
	// for each deleted row, for log-compacted topics).
	// +optional
	// +kubebuilder:validation:Enum=snapshot;perRow
	// +kubebuilder:default=snapshot
	Mode string `json:"mode,omitempty"`
}

// The Kafka record modes (spec.kafka.mode).
const (
	// KafkaModeSnapshot sends one envelope record per export or part.
	KafkaModeSnapshot = "snapshot"
	// KafkaModePerRow sends one record per changed row and tombstones.
	KafkaModePerRow = "perRow"
)

// KafkaSASL chooses the SASL mechanism.
type KafkaSASL struct {
	// mechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
	// +required
	// +kubebuilder:validation:Enum=PLAIN;SCRAM-SHA-256;SCRAM-SHA-512
	Mechanism string `json:"mechanism"`
}

// NATSSink holds the settings of a nats sink.
type NATSSink struct {
	// url of the NATS server(s), nats://, tls:// or ws(s)://; several
	// servers are comma-separated. Set this or endpoint.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^(nats|tls|wss?)://[^\s]+$`
	// +kubebuilder:validation:XValidation:rule="!self.matches('://[^/@,]*@')",message="nats.url must not carry credentials; put them in the Secret named by secretRef"
	URL string `json:"url,omitempty"`

	// subject receiving the envelope, with header Nats-Msg-Id set so the
	// server drops duplicates.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[^\s*>]+$`
	Subject string `json:"subject"`

	// stream is the JetStream stream that captures subject; publishes wait
	// for its acknowledgement. With provisioning mode ensure it is created
	// when missing, and verified in mode existing. When empty, messages go
	// to whichever stream captures subject, and none existing is a
	// permanent error.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_-]+$`
	Stream string `json:"stream,omitempty"`
}

// KollectEventSink is a Kafka topic or NATS subject that receives each bound
// inventory's snapshot as messages, split in parts when larger than
// maxExportBytes.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=kevt,categories=kollect
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Verified",type=string,JSONPath=`.status.conditions[?(@.type=="ConnectionVerified")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KollectEventSink struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec describes the bus.
	// +required
	Spec KollectEventSinkSpec `json:"spec"`

	// status is written by the control service.
	// +optional
	Status SinkStatus `json:"status,omitempty"`
}

// KollectEventSinkList is a list of KollectEventSinks.
// +kubebuilder:object:root=true
type KollectEventSinkList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the event sinks.
	Items []KollectEventSink `json:"items"`
}
