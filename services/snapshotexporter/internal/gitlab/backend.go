package gitlab

import (
	"context"
	"fmt"
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
	api := apiURL(spec.Endpoint)
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

// apiURL returns the API base <endpoint>/api/v4. The endpoint's form
// (http(s), a host, no credentials, query or fragment) is the spec's
// Validate, which DecodeSpec ran.
func apiURL(endpoint string) string {
	return strings.TrimSuffix(strings.TrimSuffix(endpoint, "/"), "/api/v4") + "/api/v4"
}

// applyGitLab applies spec.gitlab (its branch names are the spec's
// Validate, which DecodeSpec ran).
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
