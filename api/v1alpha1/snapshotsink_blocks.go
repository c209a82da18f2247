package v1alpha1

// SnapshotSerialization chooses file format and compression.
type SnapshotSerialization struct {
	// format of the files. git and gitlab: yaml (their default), json or
	// ndjson. s3, gcs and azureblob: json (their default), ndjson or
	// parquet.
	// +optional
	// +kubebuilder:validation:Enum=yaml;json;ndjson;parquet
	Format string `json:"format,omitempty"`

	// compression of objects written to s3, gcs and azureblob: none (the
	// default), gzip or zstd. Not allowed for git and gitlab.
	// +optional
	// +kubebuilder:validation:Enum=none;gzip;zstd
	Compression string `json:"compression,omitempty"`
}

// GitLayout chooses how snapshot files are laid out in a repository.
// +kubebuilder:validation:XValidation:rule="!has(self.pathTemplate) || (has(self.mode) && self.mode != 'document')",message="layout.pathTemplate applies to the perResource and split modes only; document mode writes spec.pathTemplate",fieldPath=".pathTemplate"
type GitLayout struct {
	// mode is document (the default: one file holding every row, at
	// spec.pathTemplate), perResource (one file per row at
	// layout.pathTemplate; files of rows no longer in the snapshot are
	// removed) or split (an index file at spec.pathTemplate plus the
	// perResource tree).
	// +optional
	// +kubebuilder:default=document
	// +kubebuilder:validation:Enum=document;perResource;split
	Mode string `json:"mode,omitempty"`

	// content of each row's file or entry: item (the default: the row),
	// attributes (only the attributes) or manifest (the embedded object,
	// which needs a Profile with export.mode Resource).
	// +optional
	// +kubebuilder:default=item
	// +kubebuilder:validation:Enum=item;attributes;manifest
	Content string `json:"content,omitempty"`

	// pathTemplate is the path of each row's file in the perResource and
	// split modes. Default
	// {cluster}/{sourceNamespace}/{kind}/{sourceName}{extension}.
	// Placeholders: {cluster} {targetNamespace} {targetName}
	// {sourceNamespace} {sourceName} {group} {kind} {uid} {extension};
	// segments are sanitised and {kind} is lower-cased. Two rows rendering
	// to one path are told apart by their uid. Must not contain ".." or
	// start with "/".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="!self.contains('..')",message="layout.pathTemplate must not contain '..'"
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/')",message="layout.pathTemplate must not start with '/'"
	// +kubebuilder:validation:XValidation:rule="self.matches('^([^{}]|[{](cluster|targetNamespace|targetName|sourceNamespace|sourceName|group|kind|uid|extension)[}])*$')",message="layout.pathTemplate placeholders are {cluster}, {targetNamespace}, {targetName}, {sourceNamespace}, {sourceName}, {group}, {kind}, {uid} and {extension}"
	PathTemplate string `json:"pathTemplate,omitempty"`

	// filename shapes the per-row paths of the perResource and split
	// modes, as the established API spells it. When set, the default
	// per-row path becomes
	// {cluster}/{sourceNamespace}/{group}/{kind}/{sourceName}{extension}.
	// +optional
	Filename *GitFilename `json:"filename,omitempty"`
}

// GitFilename shapes per-row paths.
type GitFilename struct {
	// groupInPath says what {group} renders: auto (the default: the API
	// group, nothing for core kinds, whose empty segment is dropped),
	// always (core kinds render "core") or never (always nothing).
	// +optional
	// +kubebuilder:default=auto
	// +kubebuilder:validation:Enum=auto;always;never
	GroupInPath string `json:"groupInPath,omitempty"`

	// lowercaseKind renders {kind} in lower case (the default, true);
	// false keeps the kind as the API spells it (Deployment).
	// +optional
	LowercaseKind *bool `json:"lowercaseKind,omitempty"`
}

// BlockLocation is the established spelling of spec.endpoint and
// spec.pathTemplate inside a git or gitlab block. Normalize moves them to
// the top-level fields; a top-level and an in-block value that differ are
// refused at admission.
type BlockLocation struct {
	// endpoint is the established spelling of spec.endpoint.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^[^\s]+$`
	// +kubebuilder:validation:XValidation:rule="!self.matches('^https?://[^/]*@') && !self.matches('^[A-Za-z][A-Za-z0-9+.-]*://[^/@]*:[^/@]*@')",message="endpoint must not carry credentials; put them in the Secret named by secretRef"
	Endpoint string `json:"endpoint,omitempty"`

	// pathTemplate is the established spelling of spec.pathTemplate.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self.contains('{namespace}') && self.contains('{name}')",message="pathTemplate must contain {namespace} and {name}"
	// +kubebuilder:validation:XValidation:rule="!self.contains('..')",message="pathTemplate must not contain '..'"
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/')",message="pathTemplate must not start with '/'"
	// +kubebuilder:validation:XValidation:rule="self.matches('^([^{}]|[{](cluster|namespace|name|generation|extension)[}])*$')",message="pathTemplate placeholders are {cluster}, {namespace}, {name}, {generation} and {extension}"
	PathTemplate string `json:"pathTemplate,omitempty"`
}

// GitSink holds the settings of a git sink.
type GitSink struct {
	BlockLocation `json:",inline"`

	// branch to commit to. Default: the remote's default branch, or main
	// when the repository is empty.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._/-]+$`
	// +kubebuilder:validation:XValidation:rule="!self.contains('..') && !self.startsWith('/') && !self.endsWith('/') && !self.endsWith('.lock')",message="branch must be a valid git branch name"
	Branch string `json:"branch,omitempty"`

	// pushPolicy is Commit (the default: a fast-forward commit on top of the
	// remote branch) or ForcePush (replace the branch with Kollect's
	// history, for repositories nobody else writes to).
	// +optional
	// +kubebuilder:default=Commit
	// +kubebuilder:validation:Enum=Commit;ForcePush
	PushPolicy string `json:"pushPolicy,omitempty"`

	// auth chooses how the Secret's keys authenticate. Without it, the
	// method follows the endpoint: ssh-privatekey for ssh:// and user@host:
	// remotes, token or username/password otherwise.
	// +optional
	Auth *GitAuth `json:"auth,omitempty"`

	// commitMessage is the subject of each commit. Placeholders {cluster}
	// {namespace} {name} {itemCount} {checksum} ({checksum} is 12 hex
	// digits). Default "chore({cluster}/{namespace}/{name}): export
	// {itemCount} items @ {checksum}". Revision and checksum trailers are
	// always added.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	CommitMessage string `json:"commitMessage,omitempty"`

	// author of the commits, default kollect <kollect@kollect.dev>.
	// +optional
	Author *GitAuthor `json:"author,omitempty"`

	// prune (default true) removes files of rows that left the snapshot in
	// the perResource and split layouts. With false they stay.
	// +optional
	// +kubebuilder:default=true
	Prune *bool `json:"prune,omitempty"`
}

// GitAuth chooses the Git authentication method.
type GitAuth struct {
	// type is token (Secret key token, sent as an HTTP password), basic
	// (username and password) or ssh (ssh-privatekey).
	// +required
	// +kubebuilder:validation:Enum=token;ssh;basic
	Type string `json:"type"`
}

// GitAuthor is a commit author.
type GitAuthor struct {
	// name of the author.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	Name string `json:"name"`

	// email of the author.
	// +required
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^[^@\s]+@[^@\s]+$`
	Email string `json:"email"`
}

// GitLabSink holds the settings of a gitlab sink.
type GitLabSink struct {
	BlockLocation `json:",inline"`

	// project is the numeric ID or full path (group/subgroup/project) of the
	// GitLab project.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:Pattern=`^[^\s]+$`
	Project string `json:"project"`

	// branch to commit to (direct mode), default the project's default
	// branch.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._/-]+$`
	// +kubebuilder:validation:XValidation:rule="!self.contains('..') && !self.startsWith('/')",message="gitlab.branch must not contain '..' or start with '/'"
	Branch string `json:"branch,omitempty"`

	// mergeRequest chooses between committing directly and proposing
	// changes through a merge request.
	// +optional
	MergeRequest *GitLabMergeRequest `json:"mergeRequest,omitempty"`
}

// GitLabMergeRequest configures merge-request delivery.
// +kubebuilder:validation:XValidation:rule="(has(self.mode) && self.mode == 'merge_request') || !(has(self.targetBranch) || has(self.branchPrefix) || has(self.titleTemplate))",message="targetBranch, branchPrefix and titleTemplate apply to mode merge_request only"
type GitLabMergeRequest struct {
	// mode is direct (the default: commit to branch) or merge_request
	// (commit to a stable branch per inventory and keep one merge request
	// open from it).
	// +optional
	// +kubebuilder:default=direct
	// +kubebuilder:validation:Enum=direct;merge_request
	Mode string `json:"mode,omitempty"`

	// targetBranch the merge request targets, default gitlab.branch or the
	// project's default branch.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._/-]+$`
	// +kubebuilder:validation:XValidation:rule="!self.contains('..') && !self.startsWith('/')",message="mergeRequest.targetBranch must not contain '..' or start with '/'"
	TargetBranch string `json:"targetBranch,omitempty"`

	// branchPrefix of the per-inventory source branch
	// (<branchPrefix><cluster>/<namespace>/<name>, "_cluster" for a
	// cluster inventory's empty namespace), default "kollect/".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._/-]+$`
	// +kubebuilder:validation:XValidation:rule="!self.contains('..') && !self.startsWith('/')",message="mergeRequest.branchPrefix must not contain '..' or start with '/'"
	BranchPrefix string `json:"branchPrefix,omitempty"`

	// titleTemplate is the merge request title; placeholders as in
	// git.commitMessage. Default "Kollect inventory {namespace}/{name}".
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	TitleTemplate string `json:"titleTemplate,omitempty"`
}

// ObjectStoreSink holds the settings of s3, gcs and azureblob sinks.
type ObjectStoreSink struct {
	// format is an alias of serialization.format: json (the default),
	// ndjson or parquet. When both are set they must agree.
	// +optional
	// +kubebuilder:validation:Enum=json;ndjson;parquet
	Format string `json:"format,omitempty"`

	// hotAttributes are attribute names that get their own typed column
	// (attr_<name>) in parquet files, next to the attributes JSON column.
	// Parquet only.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[A-Za-z_][A-Za-z0-9_]*$`
	HotAttributes []string `json:"hotAttributes,omitempty"`
}

// AzureBlobSink holds the settings of azureblob sinks.
type AzureBlobSink struct {
	// auth chooses how requests are authorised: sharedKey (the Secret's
	// accountName and accountKey), sas (the Secret's sasToken, a service
	// or account SAS granting read, write, delete and list on the
	// container, and create for provisioning mode ensure) or
	// workloadIdentity (the exporter's Microsoft Entra workload identity:
	// no secretRef, and only where the operator allows ambient credentials
	// for the sink's namespace). Default: with secretRef sharedKey when
	// the Secret has accountKey, else sas; without secretRef
	// workloadIdentity.
	// +optional
	// +kubebuilder:validation:Enum=sharedKey;sas;workloadIdentity
	Auth AzureBlobAuth `json:"auth,omitempty"`
}

// AzureBlobAuth is how an azureblob sink authorises its requests.
type AzureBlobAuth string

// Azure Blob authorisation methods.
const (
	// AzureBlobSharedKey signs requests with the storage account key.
	AzureBlobSharedKey AzureBlobAuth = "sharedKey"
	// AzureBlobSAS appends a shared access signature to every request.
	AzureBlobSAS AzureBlobAuth = "sas"
	// AzureBlobWorkloadIdentity uses the exporter's federated identity.
	AzureBlobWorkloadIdentity AzureBlobAuth = "workloadIdentity"
)
