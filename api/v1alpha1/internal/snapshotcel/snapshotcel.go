package snapshotcel

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Endpoint is the sink's endpoint in CEL: spec.endpoint, else
// git.endpoint, else gitlab.endpoint, else '-'.
const Endpoint = `(has(self.endpoint) ? self.endpoint : (has(self.git) && has(self.git.endpoint)) ? self.git.endpoint : ` +
	`(has(self.gitlab) && has(self.gitlab.endpoint)) ? self.gitlab.endpoint : '-')`

// Type is the sink's effective type in CEL: spec.type, else the type its
// block implies (git, gitlab, or objectStore with an s3:// or gs://
// endpoint), else '-'. It is the inference KollectSnapshotSinkSpec's
// Normalize makes in Go.
const Type = `(has(self.type) ? self.type : has(self.git) ? 'git' : has(self.gitlab) ? 'gitlab' : ` +
	`(has(self.objectStore) && ` + Endpoint + `.startsWith('s3://')) ? 's3' : ` +
	`(has(self.objectStore) && ` + Endpoint + `.startsWith('gs://')) ? 'gcs' : '-')`

// Rule is one XValidation rule of the spec; {type} and {endpoint} in Rule
// stand for Type and Endpoint.
type Rule struct {
	Rule, Message, FieldPath string
}

// Rules are the spec's rules, in the order of its markers (and of the
// CRD's x-kubernetes-validations).
var Rules = []Rule{
	{Rule: `!has(self.git) || {type} == 'git'`,
		Message: "git is allowed only when type is git", FieldPath: ".git"},
	{Rule: `!has(self.gitlab) || {type} == 'gitlab'`,
		Message: "gitlab is allowed only when type is gitlab", FieldPath: ".gitlab"},
	{Rule: `{type} != 'gitlab' || has(self.gitlab)`,
		Message: "gitlab is required when type is gitlab (gitlab.project has no default)", FieldPath: ".gitlab"},
	{Rule: `!has(self.objectStore) || {type} in ['s3', 'gcs', 'azureblob']`,
		Message: "objectStore is allowed only when type is s3, gcs or azureblob", FieldPath: ".objectStore"},
	{Rule: `!has(self.layout) || {type} == 'git' || {type} == 'gitlab'`,
		Message: "layout is allowed only when type is git or gitlab", FieldPath: ".layout"},
	{Rule: `!has(self.serialization) || !has(self.serialization.format) || (({type} == 'git' || {type} == 'gitlab') ? self.serialization.format in ['yaml', 'json', 'ndjson'] : self.serialization.format in ['json', 'ndjson', 'parquet'])`,
		Message: "serialization.format must be yaml, json or ndjson for git and gitlab, and json, ndjson or parquet for s3, gcs and azureblob", FieldPath: ".serialization.format"},
	{Rule: `!has(self.serialization) || !has(self.serialization.compression) || {type} in ['s3', 'gcs', 'azureblob']`,
		Message: "serialization.compression is allowed only for object stores (s3, gcs, azureblob)", FieldPath: ".serialization.compression"},
	{Rule: `!has(self.objectStore) || !has(self.objectStore.format) || !has(self.serialization) || !has(self.serialization.format) || self.objectStore.format == self.serialization.format`,
		Message: "objectStore.format is an alias of serialization.format; set one, or both to the same value", FieldPath: ".objectStore.format"},
	{Rule: `!has(self.objectStore) || !has(self.objectStore.hotAttributes) || (has(self.objectStore.format) && self.objectStore.format == 'parquet') || (has(self.serialization) && has(self.serialization.format) && self.serialization.format == 'parquet')`,
		Message: "objectStore.hotAttributes need the parquet format", FieldPath: ".objectStore.hotAttributes"},
	{Rule: `!has(self.pathTemplate) || !((has(self.objectStore) && has(self.objectStore.format) && self.objectStore.format == 'parquet') || (has(self.serialization) && has(self.serialization.format) && self.serialization.format == 'parquet'))`,
		Message: "pathTemplate does not apply to parquet, whose keys follow a fixed partitioned layout", FieldPath: ".pathTemplate"},
	{Rule: `{type} != 'git' || {endpoint}.matches('^(https?|ssh|file)://') || {endpoint}.matches('^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:')`,
		Message: "a git endpoint must be an http(s)://, ssh:// or file:// URL, or user@host:path (git:// is not supported)", FieldPath: ".endpoint"},
	{Rule: `{type} != 'gitlab' || {endpoint}.matches('^https?://[^/?#@]+([/][^?#]*)?$')`,
		Message: "a gitlab endpoint must be the http(s):// URL of the GitLab server, without credentials (the token goes in the Secret), query or fragment", FieldPath: ".endpoint"},
	{Rule: `{type} != 's3' || {endpoint}.matches('^(s3|https?)://[^/]+')`,
		Message: "an s3 endpoint must be s3://bucket[/prefix] or http(s)://host/bucket[/prefix]", FieldPath: ".endpoint"},
	{Rule: `{type} != 'gcs' || {endpoint}.matches('^(gs|https?)://[^/]+')`,
		Message: "a gcs endpoint must be gs://bucket[/prefix] or http(s)://host/bucket[/prefix]", FieldPath: ".endpoint"},
	{Rule: `{type} != 'azureblob' || (({endpoint}.matches('^azblob://[^/?#]+/[^/?#]+') || {endpoint}.matches('^https?://[^./?#:]+[.]blob[.][^/?#]+/[^/?#]+') || {endpoint}.matches('^https?://[^/?#]+/[^/?#]+/[^/?#]+')) && !{endpoint}.contains('?'))`,
		Message: "an azureblob endpoint must be azblob://account/container[/prefix], https://account.blob.<suffix>/container[/prefix] or http(s)://host/account/container[/prefix], without a query (a SAS token goes in the Secret)", FieldPath: ".endpoint"},
	{Rule: `!has(self.azureBlob) || {type} == 'azureblob'`,
		Message: "azureBlob is allowed only when type is azureblob", FieldPath: ".azureBlob"},
	{Rule: `!has(self.azureBlob) || !has(self.azureBlob.auth) || (self.azureBlob.auth == 'workloadIdentity') != has(self.secretRef)`,
		Message: "azureBlob.auth workloadIdentity takes no secretRef; sharedKey and sas need one", FieldPath: ".azureBlob.auth"},
	{Rule: `has(self.type) || has(self.git) || has(self.gitlab) || (has(self.objectStore) && ({endpoint}.startsWith('s3://') || {endpoint}.startsWith('gs://')))`,
		Message: "type is required unless one git or gitlab block, or an objectStore block with an s3:// or gs:// endpoint, implies it", FieldPath: ".type"},
	{Rule: `has(self.endpoint) || (has(self.git) && has(self.git.endpoint)) || (has(self.gitlab) && has(self.gitlab.endpoint))`,
		Message: "endpoint is required (spec.endpoint, or git.endpoint or gitlab.endpoint)", FieldPath: ".endpoint"},
	{Rule: `!has(self.endpoint) || !has(self.git) || !has(self.git.endpoint) || self.endpoint == self.git.endpoint`,
		Message: "endpoint and git.endpoint differ; set one of them", FieldPath: ".git.endpoint"},
	{Rule: `!has(self.endpoint) || !has(self.gitlab) || !has(self.gitlab.endpoint) || self.endpoint == self.gitlab.endpoint`,
		Message: "endpoint and gitlab.endpoint differ; set one of them", FieldPath: ".gitlab.endpoint"},
	{Rule: `!has(self.pathTemplate) || !has(self.git) || !has(self.git.pathTemplate) || self.pathTemplate == self.git.pathTemplate`,
		Message: "pathTemplate and git.pathTemplate differ; set one of them", FieldPath: ".git.pathTemplate"},
	{Rule: `!has(self.pathTemplate) || !has(self.gitlab) || !has(self.gitlab.pathTemplate) || self.pathTemplate == self.gitlab.pathTemplate`,
		Message: "pathTemplate and gitlab.pathTemplate differ; set one of them", FieldPath: ".gitlab.pathTemplate"},
}

// Markers returns the XValidation marker line of each rule, expanded.
func Markers() []string {
	out := make([]string, 0, len(Rules))
	expand := strings.NewReplacer("{type}", Type, "{endpoint}", Endpoint)
	for _, r := range Rules {
		out = append(out, "// +kubebuilder:validation:XValidation:rule="+strconv.Quote(expand.Replace(r.Rule))+
			",message="+strconv.Quote(r.Message)+",fieldPath="+strconv.Quote(r.FieldPath))
	}
	return out
}

// Begin and End delimit the generated markers in the Go source.
const (
	Begin = "// +kollect:generated:begin=snapshotcel"
	End   = "// +kollect:generated:end=snapshotcel"
)

// Rewrite returns src with the lines between Begin and End replaced by
// Markers.
func Rewrite(src []byte) ([]byte, error) {
	begin := bytes.Index(src, []byte(Begin+"\n"))
	end := bytes.Index(src, []byte(End+"\n"))
	if begin < 0 || end < begin || bytes.Count(src, []byte(Begin)) != 1 || bytes.Count(src, []byte(End)) != 1 {
		return nil, fmt.Errorf("want one line %q followed by one line %q", Begin, End)
	}
	var out bytes.Buffer
	out.Write(src[:begin+len(Begin)+1])
	for _, m := range Markers() {
		out.WriteString(m + "\n")
	}
	out.Write(src[end:])
	return out.Bytes(), nil
}
