package gitlab

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/tree"
)

// Modes of spec.gitlab.mergeRequest.mode.
const (
	ModeDirect       = "direct"
	ModeMergeRequest = "merge_request"
)

// Defaults of spec.gitlab.
const (
	// DefaultBranchPrefix starts the per-inventory source branch of
	// merge_request mode: <prefix><cluster>/<namespace>/<name>.
	DefaultBranchPrefix = "kollect/"
	// DefaultTitleTemplate is the merge request title.
	DefaultTitleTemplate = "Kollect inventory {namespace}/{name}"
	// CommitSubject is the subject of an export commit, as the git sink's
	// default; {checksum} is its first 12 hex digits.
	CommitSubject = "chore({cluster}/{namespace}/{name}): export {itemCount} items @ {checksum}"
	// DeleteSubject is the subject of the commit removing a deleted
	// inventory.
	DeleteSubject = "chore({cluster}/{namespace}/{name}): remove inventory"
	// AuthorName and AuthorEmail author every commit.
	AuthorName  = "kollect"
	AuthorEmail = "kollect@kollect.dev"
	// TrailerRevision and TrailerChecksum are the trailers of every commit.
	TrailerRevision = "Kollect-Revision"
	TrailerChecksum = "Kollect-Checksum"
)

// secretKey is the Secret key holding the access token.
const secretKey = "token"

// requestTimeout bounds one API call; a large commit is one call.
const requestTimeout = 5 * time.Minute

// branchName is what API.md admits as a branch name.
var branchName = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)

// Backend creates gitlab snapshot sinks.
type Backend struct {
	// Egress is the address policy of every connection.
	Egress egress.Policy
}

// Type returns "gitlab".
func (Backend) Type() string { return string(v1alpha1.SnapshotGitLab) }

// New returns a sink writing to the GitLab project of cfg. An invalid spec,
// or a missing Secret or key, is a sink.Permanent error naming the field.
// New makes no request: the first Write or Check does.
func (b Backend) New(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (sink.Sink, error) {
	s, err := b.newSink(ctx, cfg, creds)
	if err != nil {
		return nil, fmt.Errorf("configure gitlab sink %s/%s: %w", cfg.Namespace, cfg.Name, err)
	}
	return s, nil
}

func (b Backend) newSink(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (*Sink, error) {
	spec, err := backend.DecodeSpec[v1alpha1.KollectSnapshotSinkSpec](cfg, string(v1alpha1.SnapshotGitLab))
	if err != nil {
		return nil, err
	}
	api, err := apiURL(spec.Endpoint)
	if err != nil {
		return nil, err
	}
	s := &Sink{endpoint: spec.Endpoint, existing: spec.Provisioning != nil && spec.Provisioning.Mode == v1alpha1.ProvisionExisting}
	if s.tree, err = tree.SpecFor(spec); err != nil {
		return nil, err
	}
	if err := s.applyGitLab(spec.GitLab); err != nil {
		return nil, err
	}
	token, err := readToken(ctx, cfg, &spec, creds)
	if err != nil {
		return nil, err
	}
	tlsCfg, err := egress.TLSConfig(ctx, spec.TLS, cfg.Namespace, creds)
	if err != nil {
		return nil, err
	}
	hc := b.Egress.HTTPClient(tlsCfg)
	hc.Timeout = requestTimeout
	s.c = &client{http: hc, api: api, project: spec.GitLab.Project, token: token}
	return s, nil
}

// apiURL returns the API base <endpoint>/api/v4 of an http(s) GitLab URL.
func apiURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", sink.Permanent(fmt.Errorf("spec.endpoint %q must be the http(s):// URL of the GitLab server", endpoint))
	}
	if u.User != nil {
		return "", sink.Permanent(fmt.Errorf("spec.endpoint must not carry credentials; put the token in the Secret named by spec.secretRef"))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", sink.Permanent(fmt.Errorf("spec.endpoint %q must not have a query or fragment", endpoint))
	}
	base := strings.TrimSuffix(strings.TrimSuffix(u.String(), "/"), "/api/v4")
	return base + "/api/v4", nil
}

// applyGitLab validates and applies spec.gitlab.
func (s *Sink) applyGitLab(g *v1alpha1.GitLabSink) error {
	if g == nil || g.Project == "" {
		return sink.Permanent(fmt.Errorf("spec.gitlab.project is required"))
	}
	s.branch, s.mode = g.Branch, ModeDirect
	s.prefix, s.title = DefaultBranchPrefix, DefaultTitleTemplate
	if mr := g.MergeRequest; mr != nil {
		if mr.Mode == ModeMergeRequest { // the CRD's enum: direct or merge_request
			s.mode = ModeMergeRequest
		}
		s.target = mr.TargetBranch
		s.prefix = or(mr.BranchPrefix, s.prefix)
		s.title = or(mr.TitleTemplate, s.title)
	}
	for field, v := range map[string]string{"branch": s.branch, "mergeRequest.targetBranch": s.target, "mergeRequest.branchPrefix": s.prefix} {
		if v != "" && (!branchName.MatchString(v) || strings.Contains(v, "..") || strings.HasPrefix(v, "/")) {
			return sink.Permanent(fmt.Errorf("spec.gitlab.%s %q is not a valid branch name", field, v))
		}
	}
	if s.target == "" {
		s.target = s.branch
	}
	return nil
}

// readToken reads the Secret key token.
func readToken(ctx context.Context, cfg busv1.SinkConfig, spec *v1alpha1.KollectSnapshotSinkSpec, creds backend.Credentials) (string, error) {
	ref := spec.SecretRef
	if ref == nil {
		return "", sink.Permanent(fmt.Errorf("spec.secretRef is required: a gitlab sink reads its access token from the Secret key %q", secretKey))
	}
	data, err := backend.SecretData(ctx, creds, cfg.Namespace, ref, secretKey)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(data[secretKey]))
	if tok == "" {
		return "", backend.MissingKey(or(ref.Namespace, cfg.Namespace), ref.Name, secretKey)
	}
	return tok, nil
}

// or returns a, or b when a is empty.
func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
