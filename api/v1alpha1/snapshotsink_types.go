package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The XValidation markers of KollectSnapshotSinkSpec are generated from
// the rules of internal/snapshotcel, where the sink's effective type is
// written once: edit them there, then make generate.
//go:generate go run ./internal/snapshotcel/gen snapshotsink_types.go

// SnapshotSinkType is the kind of store a snapshot sink writes files to.
// +kubebuilder:validation:Enum=git;gitlab;s3;gcs;azureblob
type SnapshotSinkType string

// Snapshot sink types.
const (
	SnapshotGit    SnapshotSinkType = "git"
	SnapshotGitLab SnapshotSinkType = "gitlab"
	SnapshotS3     SnapshotSinkType = "s3"
	SnapshotGCS    SnapshotSinkType = "gcs"
	// SnapshotAzureBlob writes to an Azure Blob Storage container.
	SnapshotAzureBlob SnapshotSinkType = "azureblob"
)

// KollectSnapshotSinkSpec describes a Git repository, GitLab project or
// object-store bucket or container that receives inventory snapshots as
// files.
//
// +kollect:generated:begin=snapshotcel
// +kubebuilder:validation:XValidation:rule="!has(self.git) || (has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') == 'git'",message="git is allowed only when type is git",fieldPath=".git"
// +kubebuilder:validation:XValidation:rule="!has(self.gitlab) || (has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') == 'gitlab'",message="gitlab is allowed only when type is gitlab",fieldPath=".gitlab"
// +kubebuilder:validation:XValidation:rule="(has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') != 'gitlab' || has(self.gitlab)",message="gitlab is required when type is gitlab (gitlab.project has no default)",fieldPath=".gitlab"
// +kubebuilder:validation:XValidation:rule="!has(self.objectStore) || (has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') in ['s3', 'gcs', 'azureblob']",message="objectStore is allowed only when type is s3, gcs or azureblob",fieldPath=".objectStore"
// +kubebuilder:validation:XValidation:rule="!has(self.layout) || (has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') == 'git' || (has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') == 'gitlab'",message="layout is allowed only when type is git or gitlab",fieldPath=".layout"
// +kubebuilder:validation:XValidation:rule="!has(self.serialization) || !has(self.serialization.format) || (((has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') == 'git' || (has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') == 'gitlab') ? self.serialization.format in ['yaml', 'json', 'ndjson'] : self.serialization.format in ['json', 'ndjson', 'parquet'])",message="serialization.format must be yaml, json or ndjson for git and gitlab, and json, ndjson or parquet for s3, gcs and azureblob",fieldPath=".serialization.format"
// +kubebuilder:validation:XValidation:rule="!has(self.serialization) || !has(self.serialization.compression) || (has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') in ['s3', 'gcs', 'azureblob']",message="serialization.compression is allowed only for object stores (s3, gcs, azureblob)",fieldPath=".serialization.compression"
// +kubebuilder:validation:XValidation:rule="!has(self.objectStore) || !has(self.objectStore.format) || !has(self.serialization) || !has(self.serialization.format) || self.objectStore.format == self.serialization.format",message="objectStore.format is an alias of serialization.format; set one, or both to the same value",fieldPath=".objectStore.format"
// +kubebuilder:validation:XValidation:rule="!has(self.objectStore) || !has(self.objectStore.hotAttributes) || (has(self.objectStore.format) && self.objectStore.format == 'parquet') || (has(self.serialization) && has(self.serialization.format) && self.serialization.format == 'parquet')",message="objectStore.hotAttributes need the parquet format",fieldPath=".objectStore.hotAttributes"
// +kubebuilder:validation:XValidation:rule="!has(self.pathTemplate) || !((has(self.objectStore) && has(self.objectStore.format) && self.objectStore.format == 'parquet') || (has(self.serialization) && has(self.serialization.format) && self.serialization.format == 'parquet'))",message="pathTemplate does not apply to parquet, whose keys follow a fixed partitioned layout",fieldPath=".pathTemplate"
// +kubebuilder:validation:XValidation:rule="(has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') != 'git' || (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').matches('^(https?|ssh|file)://') || (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').matches('^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:')",message="a git endpoint must be an http(s)://, ssh:// or file:// URL, or user@host:path (git:// is not supported)",fieldPath=".endpoint"
// +kubebuilder:validation:XValidation:rule="(has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') != 'gitlab' || (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').matches('^https?://[^/?#@]+([/][^?#]*)?$')",message="a gitlab endpoint must be the http(s):// URL of the GitLab server, without credentials (the token goes in the Secret), query or fragment",fieldPath=".endpoint"
// +kubebuilder:validation:XValidation:rule="(has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') != 's3' || (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').matches('^(s3|https?)://[^/]+')",message="an s3 endpoint must be s3://bucket[/prefix] or http(s)://host/bucket[/prefix]",fieldPath=".endpoint"
// +kubebuilder:validation:XValidation:rule="(has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') != 'gcs' || (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').matches('^(gs|https?)://[^/]+')",message="a gcs endpoint must be gs://bucket[/prefix] or http(s)://host/bucket[/prefix]",fieldPath=".endpoint"
// +kubebuilder:validation:XValidation:rule="(has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') != 'azureblob' || (((has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').matches('^azblob://[^/?#]+/[^/?#]+') || (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').matches('^https?://[^./?#:]+[.]blob[.][^/?#]+/[^/?#]+') || (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').matches('^https?://[^/?#]+/[^/?#]+/[^/?#]+')) && !(has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').contains('?'))",message="an azureblob endpoint must be azblob://account/container[/prefix], https://account.blob.<suffix>/container[/prefix] or http(s)://host/account/container[/prefix], without a query (a SAS token goes in the Secret)",fieldPath=".endpoint"
// +kubebuilder:validation:XValidation:rule="!has(self.azureBlob) || (has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://')) ? 's3' : (has(self.objectStore) && (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')) ? 'gcs' : '-') == 'azureblob'",message="azureBlob is allowed only when type is azureblob",fieldPath=".azureBlob"
// +kubebuilder:validation:XValidation:rule="!has(self.azureBlob) || !has(self.azureBlob.auth) || (self.azureBlob.auth == 'workloadIdentity') != has(self.secretRef)",message="azureBlob.auth workloadIdentity takes no secretRef; sharedKey and sas need one",fieldPath=".azureBlob.auth"
// +kubebuilder:validation:XValidation:rule="has(self.type) || has(self.git) || has(self.gitlab) || (has(self.objectStore) && ((has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('s3://') || (has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : (has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-').startsWith('gs://')))",message="type is required unless one git or gitlab block, or an objectStore block with an s3:// or gs:// endpoint, implies it",fieldPath=".type"
// +kubebuilder:validation:XValidation:rule="has(self.endpoint) || (has(self.git) && has(self.git.endpoint)) || (has(self.gitlab) && has(self.gitlab.endpoint))",message="endpoint is required (spec.endpoint, or git.endpoint or gitlab.endpoint)",fieldPath=".endpoint"
// +kubebuilder:validation:XValidation:rule="!has(self.endpoint) || !has(self.git) || !has(self.git.endpoint) || self.endpoint == self.git.endpoint",message="endpoint and git.endpoint differ; set one of them",fieldPath=".git.endpoint"
// +kubebuilder:validation:XValidation:rule="!has(self.endpoint) || !has(self.gitlab) || !has(self.gitlab.endpoint) || self.endpoint == self.gitlab.endpoint",message="endpoint and gitlab.endpoint differ; set one of them",fieldPath=".gitlab.endpoint"
// +kubebuilder:validation:XValidation:rule="!has(self.pathTemplate) || !has(self.git) || !has(self.git.pathTemplate) || self.pathTemplate == self.git.pathTemplate",message="pathTemplate and git.pathTemplate differ; set one of them",fieldPath=".git.pathTemplate"
// +kubebuilder:validation:XValidation:rule="!has(self.pathTemplate) || !has(self.gitlab) || !has(self.gitlab.pathTemplate) || self.pathTemplate == self.gitlab.pathTemplate",message="pathTemplate and gitlab.pathTemplate differ; set one of them",fieldPath=".gitlab.pathTemplate"
// +kollect:generated:end=snapshotcel
type KollectSnapshotSinkSpec struct {
	// type is git, gitlab, s3, gcs or azureblob. It may be left out when
	// the sink's only block implies it (git, gitlab, or objectStore with an
	// s3:// or gs:// endpoint): the established spelling, normalised to the
	// type.
	// +optional
	Type SnapshotSinkType `json:"type,omitempty"`

	// endpoint locates the store; it never carries credentials.
	//   - git: the repository URL, https://, ssh://, user@host:path or
	//     file:// (only where the operator allows file sinks); git:// is
	//     refused (no authentication). Secret keys: username/password (basic), token
	//     (token), ssh-privatekey (ssh).
	//   - gitlab: the GitLab server URL, e.g. https://gitlab.com. Secret
	//     key: token.
	//   - s3: s3://bucket[/prefix] (AWS) or https://host/bucket[/prefix]
	//     (path-style, any S3 server). Secret keys: accessKeyID,
	//     secretAccessKey; without secretRef the default credential chain.
	//   - gcs: gs://bucket[/prefix], or http(s)://host/bucket[/prefix] for
	//     an emulator. Secret key: credentials.json; without secretRef the
	//     default credentials.
	//   - azureblob: azblob://account/container[/prefix] (Azure's public
	//     cloud), https://account.blob.<suffix>/container[/prefix] (any
	//     Azure cloud), or http(s)://host/account/container[/prefix]
	//     (path-style: an emulator). Secret keys: accountName and
	//     accountKey (shared key) or sasToken; without secretRef workload
	//     identity.
	// The address is checked against private and link-local ranges at
	// admission and on every connection. Required, here or (the
	// established spelling) as git.endpoint or gitlab.endpoint.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^[^\s]+$`
	// +kubebuilder:validation:XValidation:rule="!self.matches('^https?://[^/]*@') && !self.matches('^[A-Za-z][A-Za-z0-9+.-]*://[^/@]*:[^/@]*@')",message="endpoint must not carry credentials; put them in the Secret named by secretRef"
	Endpoint string `json:"endpoint,omitempty"`

	SinkCommon `json:",inline"`

	// pathTemplate is the path of the inventory's file (document layout),
	// index file (split layout) or object key, relative to the repository
	// root or the endpoint's prefix. Placeholders: {cluster} {namespace}
	// {name} {generation} {extension}. It must contain {namespace} and
	// {name}, must not contain "..", and must not start with "/". Default
	// inventory/{namespace}/{name}{extension}. Not used with parquet.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self.contains('{namespace}') && self.contains('{name}')",message="pathTemplate must contain {namespace} and {name}"
	// +kubebuilder:validation:XValidation:rule="!self.contains('..')",message="pathTemplate must not contain '..'"
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/')",message="pathTemplate must not start with '/'"
	// +kubebuilder:validation:XValidation:rule="self.matches('^([^{}]|[{](cluster|namespace|name|generation|extension)[}])*$')",message="pathTemplate placeholders are {cluster}, {namespace}, {name}, {generation} and {extension}"
	PathTemplate string `json:"pathTemplate,omitempty"`

	// serialization chooses the file format and, for object stores, the
	// compression.
	// +optional
	Serialization *SnapshotSerialization `json:"serialization,omitempty"`

	// layout chooses how Git and GitLab sinks lay files out (git and
	// gitlab only).
	// +optional
	Layout *GitLayout `json:"layout,omitempty"`

	// git holds settings of type git.
	// +optional
	Git *GitSink `json:"git,omitempty"`

	// gitlab holds settings of type gitlab; required for that type.
	// +optional
	GitLab *GitLabSink `json:"gitlab,omitempty"`

	// objectStore holds settings of types s3, gcs and azureblob.
	// +optional
	ObjectStore *ObjectStoreSink `json:"objectStore,omitempty"`

	// azureBlob holds settings of type azureblob.
	// +optional
	AzureBlob *AzureBlobSink `json:"azureBlob,omitempty"`
}

// KollectSnapshotSink is a Git repository, GitLab project, S3 bucket, GCS
// bucket or Azure Blob container that receives each bound inventory's
// snapshot as files.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=ksnap,categories=kollect
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="Endpoint",type=string,JSONPath=`.spec.endpoint`,priority=1
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Verified",type=string,JSONPath=`.status.conditions[?(@.type=="ConnectionVerified")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type KollectSnapshotSink struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec describes the store.
	// +required
	Spec KollectSnapshotSinkSpec `json:"spec"`

	// status is written by the control service.
	// +optional
	Status SinkStatus `json:"status,omitempty"`
}

// KollectSnapshotSinkList is a list of KollectSnapshotSinks.
// +kubebuilder:object:root=true
type KollectSnapshotSinkList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the snapshot sinks.
	Items []KollectSnapshotSink `json:"items"`
}
