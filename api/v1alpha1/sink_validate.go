package v1alpha1

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The semantic checks of sink specs that need no SDK and no server. The
// control webhook, the reconciler and every Backend.New (through
// backend.DecodeSpec) call the same Validate, so the three agree on every
// endpoint form; the CRD's CEL rules check shape only. A new type adds its
// line to its family's table below.

// endpointForm is the endpoint a type accepts: a pattern and the message
// refusing others.
// +kubebuilder:object:generate=false
type endpointForm struct {
	pattern *regexp.Regexp
	message string
}

func form(pattern, message string) endpointForm {
	return endpointForm{pattern: regexp.MustCompile(pattern), message: message}
}

// snapshotShape is what a snapshot sink type accepts: the endpoint form
// and the blocks it may carry (git, gitlab, objectStore, azureBlob, layout).
type snapshotShape struct {
	endpoint endpointForm
	blocks   []string
}

// snapshotShapes holds every snapshot sink type. git:// is refused: it
// is unauthenticated and unencrypted, and the exporter's egress policy
// covers http(s), ssh and file only.
var snapshotShapes = map[SnapshotSinkType]snapshotShape{
	SnapshotGit: {blocks: []string{"git", "layout"}, endpoint: form(`^((https?|ssh|file)://|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:)`,
		"a git endpoint must be an http(s)://, ssh:// or file:// URL, or user@host:path (git:// is not supported)")},
	SnapshotGitLab: {blocks: []string{"gitlab", "layout"}, endpoint: form(`^https?://[^/?#@]+([/][^?#]*)?$`,
		"a gitlab endpoint must be the http(s):// URL of the GitLab server, without credentials (the token goes in the Secret), query or fragment")},
	SnapshotS3: {blocks: []string{"objectStore"}, endpoint: form(`^(s3|https?)://[^/]+`,
		"an s3 endpoint must be s3://bucket[/prefix] or http(s)://host/bucket[/prefix]")},
	SnapshotGCS: {blocks: []string{"objectStore"}, endpoint: form(`^(gs|https?)://[^/]+`,
		"a gcs endpoint must be gs://bucket[/prefix] or http(s)://host/bucket[/prefix]")},
	SnapshotAzureBlob: {blocks: []string{"objectStore", "azureBlob"},
		endpoint: form(`^(azblob://[^/?#]+/[^/?#]+|https?://[^./?#:]+[.]blob[.][^/?#]+/[^/?#]+|https?://[^/?#]+/[^/?#]+/[^/?#]+)[^?]*$`,
			"an azureblob endpoint must be azblob://account/container[/prefix], https://account.blob.<suffix>/container[/prefix] or http(s)://host/account/container[/prefix], without a query (a SAS token goes in the Secret)")},
}

// databaseForms holds every database sink type's endpoint form.
var databaseForms = map[DatabaseSinkType]endpointForm{
	DatabasePostgres: form(`^postgres(ql)?://`, "a postgres endpoint must be a postgres:// or postgresql:// URL"),
	DatabaseMongoDB:  form(`^mongodb([+]srv)?://`, "a mongodb endpoint must be a mongodb:// or mongodb+srv:// URL"),
	DatabaseBigQuery: form(`^https?://`, "a bigquery endpoint must be an http(s):// URL"),
}

// eventForms holds every event sink type's spec.endpoint form.
var eventForms = map[EventSinkType]endpointForm{
	EventKafka: form(`^[^\s/:@]+:[0-9]{1,5}$`, "a kafka endpoint must be one bootstrap broker host:port"),
	EventNATS:  form(`^(nats|tls|wss?)://`, "a nats endpoint must be a nats://, tls:// or ws(s):// URL"),
}

// gitLabBranch is what a gitlab branch field admits: the CRD's pattern,
// without ".." and without a leading "/".
var gitLabBranch = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)

// commitPlaceholders are the placeholders of git.commitMessage.
var commitPlaceholders = []string{"{cluster}", "{namespace}", "{name}", "{itemCount}", "{checksum}"}

var placeholderPattern = regexp.MustCompile(`\{[^{}]*\}`)

// Validate checks the spec (normalised first, on a copy) beyond what the
// CRD schema can: its type and blocks agree, its endpoint has the type's
// form, the gitlab branch names are valid, and git.commitMessage names
// known placeholders. Each error names
// its field.
func (s *KollectSnapshotSinkSpec) Validate() field.ErrorList {
	n := s.DeepCopy()
	n.Normalize()
	spec := field.NewPath("spec")
	var errs field.ErrorList
	shape, ok := snapshotShapes[n.Type]
	switch {
	case n.Type == "":
		return append(errs, field.Required(spec.Child("type"),
			"type is required unless one git or gitlab block, or an objectStore block with an s3:// or gs:// endpoint, implies it"))
	case !ok:
		return append(errs, field.NotSupported(spec.Child("type"), n.Type, sortedKeys(snapshotShapes)))
	}
	for _, b := range []struct {
		name string
		set  bool
	}{{"git", n.Git != nil}, {"gitlab", n.GitLab != nil}, {"objectStore", n.ObjectStore != nil}, {"azureBlob", n.AzureBlob != nil}, {"layout", n.Layout != nil}} {
		if b.set && !slices.Contains(shape.blocks, b.name) {
			errs = append(errs, field.Forbidden(spec.Child(b.name), fmt.Sprintf("%s is not allowed when type is %s", b.name, n.Type)))
		}
	}
	if n.Type == SnapshotGitLab && n.GitLab == nil {
		errs = append(errs, field.Required(spec.Child("gitlab"), "gitlab is required when type is gitlab (gitlab.project has no default)"))
	}
	errs = append(errs, checkEndpoint(spec.Child("endpoint"), n.Endpoint, shape.endpoint, true)...)
	if g := n.GitLab; g != nil {
		gl := spec.Child("gitlab")
		errs = append(errs, checkBranch(gl.Child("branch"), g.Branch)...)
		if mr := g.MergeRequest; mr != nil {
			errs = append(errs, checkBranch(gl.Child("mergeRequest", "targetBranch"), mr.TargetBranch)...)
			errs = append(errs, checkBranch(gl.Child("mergeRequest", "branchPrefix"), mr.BranchPrefix)...)
		}
	}
	if n.Git != nil && n.Git.CommitMessage != "" {
		for _, p := range placeholderPattern.FindAllString(n.Git.CommitMessage, -1) {
			if !slices.Contains(commitPlaceholders, p) {
				errs = append(errs, field.Invalid(spec.Child("git", "commitMessage"), p,
					"unknown placeholder (known: "+strings.Join(commitPlaceholders, " ")+")"))
			}
		}
	}
	return errs
}

// Validate checks the spec (normalised first, on a copy) beyond what the
// CRD schema can: its type's block is present and no other, and its
// endpoint has the type's form. Each error names its field.
func (s *KollectDatabaseSinkSpec) Validate() field.ErrorList {
	n := s.DeepCopy()
	n.Normalize()
	spec := field.NewPath("spec")
	f, ok := databaseForms[n.Type]
	if !ok {
		return field.ErrorList{field.NotSupported(spec.Child("type"), n.Type, sortedKeys(databaseForms))}
	}
	errs := blocks(spec, string(n.Type), map[string]bool{"postgres": n.Postgres != nil, "mongodb": n.MongoDB != nil, "bigquery": n.BigQuery != nil})
	errs = append(errs, checkEndpoint(spec.Child("endpoint"), n.Endpoint, f, false)...)
	locator := n.Endpoint != "" || n.SecretRef != nil || (n.Postgres != nil && n.Postgres.DatabaseRef != nil) ||
		(n.MongoDB != nil && n.MongoDB.DatabaseRef != nil)
	if n.Type != DatabaseBigQuery && !locator {
		errs = append(errs, field.Required(spec.Child("endpoint"),
			"postgres and mongodb sinks need an endpoint, a secretRef or a databaseRef to find the server"))
	}
	return errs
}

// Validate checks the spec beyond what the CRD schema can: its type's
// block is present and no other, exactly one address field is set and has
// the type's form, and SASL names its Secret. Each error names its field.
func (s *KollectEventSinkSpec) Validate() field.ErrorList {
	spec := field.NewPath("spec")
	f, ok := eventForms[s.Type]
	if !ok {
		return field.ErrorList{field.NotSupported(spec.Child("type"), s.Type, sortedKeys(eventForms))}
	}
	errs := blocks(spec, string(s.Type), map[string]bool{"kafka": s.Kafka != nil, "nats": s.NATS != nil})
	errs = append(errs, checkEndpoint(spec.Child("endpoint"), s.Endpoint, f, false)...)
	switch {
	case s.Kafka != nil && (s.Endpoint != "") == (len(s.Kafka.Brokers) > 0):
		errs = append(errs, field.Invalid(spec.Child("kafka", "brokers"), len(s.Kafka.Brokers), "set exactly one of endpoint and kafka.brokers"))
	case s.NATS != nil && (s.Endpoint != "") == (s.NATS.URL != ""):
		errs = append(errs, field.Invalid(spec.Child("nats", "url"), "", "set exactly one of endpoint and nats.url"))
	}
	if s.Kafka != nil && s.Kafka.SASL != nil && s.SecretRef == nil {
		errs = append(errs, field.Required(spec.Child("secretRef"), "kafka.sasl needs secretRef, the Secret holding username and password"))
	}
	return errs
}

// Normalize does nothing: event sinks have no established spellings. It
// exists so that every sink spec offers the same methods.
func (s *KollectEventSinkSpec) Normalize() {}

// blocks checks that the block named typ is set and no other.
func blocks(spec *field.Path, typ string, set map[string]bool) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedKeys(set) {
		switch {
		case name == typ && !set[name]:
			errs = append(errs, field.Required(spec.Child(name), fmt.Sprintf("%s is required when type is %s", name, typ)))
		case name != typ && set[name]:
			errs = append(errs, field.Forbidden(spec.Child(name), fmt.Sprintf("%s is allowed only when type is %s", name, name)))
		}
	}
	return errs
}

// checkBranch checks a gitlab branch name (or branch prefix); empty is the
// default.
func checkBranch(path *field.Path, v string) field.ErrorList {
	if v == "" || (gitLabBranch.MatchString(v) && !strings.Contains(v, "..") && !strings.HasPrefix(v, "/")) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, v,
		"not a valid branch name: letters, digits, '.', '_', '-' and '/', without '..' and not starting with '/'")}
}

// checkEndpoint checks endpoint against the type's form; an empty one is
// an error when required. The value is never quoted: it may be a URL an
// operator wrote credentials into.
func checkEndpoint(path *field.Path, endpoint string, f endpointForm, required bool) field.ErrorList {
	switch {
	case endpoint == "" && required:
		return field.ErrorList{field.Required(path, "endpoint is required (spec.endpoint, or git.endpoint or gitlab.endpoint)")}
	case endpoint != "" && !f.pattern.MatchString(endpoint):
		return field.ErrorList{field.Invalid(path, schemeOf(endpoint), f.message)}
	}
	return nil
}

// schemeOf returns the scheme an endpoint starts with ("git://"), or
// "(redacted)": enough to see what was refused without the address.
func schemeOf(endpoint string) string {
	if i := strings.Index(endpoint, "://"); i > 0 {
		return endpoint[:i+3]
	}
	return "(redacted)"
}

func sortedKeys[K ~string, V any](m map[K]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, string(k))
	}
	slices.Sort(out)
	return out
}
