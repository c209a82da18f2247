package git

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/tree"
)

// Push policies of spec.git.pushPolicy.
const (
	pushCommit    = "Commit"
	pushForcePush = "ForcePush"
)

// Defaults of spec.git.
const (
	DefaultCommitMessage = "chore({cluster}/{namespace}/{name}): export {itemCount} items @ {checksum}"
	DefaultAuthorName    = "kollect"
	DefaultAuthorEmail   = "kollect@kollect.dev"
)

// Backend creates git snapshot sinks. Use it by pointer: its sinks share
// one mirror, and one export lock, per repository branch.
type Backend struct {
	// Egress is the address policy of every connection.
	Egress egress.Policy
	// CacheDir is where fetches unpack the branch's tip before the
	// exporter keeps its trees, so that the blobs of a large repository
	// land on disk rather than in memory; nothing stays there between
	// fetches. "" unpacks in memory.
	CacheDir string
	// MaxFetchBytes caps each answer of an http(s) remote (a fetched
	// pack above all); 0 is DefaultMaxFetchBytes. An answer over it is a
	// permanent error naming the cap. SSH remotes are not capped.
	MaxFetchBytes int64

	mu      sync.Mutex
	mirrors map[string]*mirror
}

// Type returns "git".
func (b *Backend) Type() string { return string(v1alpha1.SnapshotGit) }

// New returns a sink writing to the repository of cfg. An invalid spec, or
// a missing Secret or key, is a sink.Permanent error naming the field.
func (b *Backend) New(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (sink.Sink, error) {
	s, err := b.newSink(ctx, cfg, creds)
	if err != nil {
		return nil, fmt.Errorf("configure git sink %s/%s: %w", cfg.Namespace, cfg.Name, err)
	}
	return s, nil
}

func (b *Backend) newSink(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (*Sink, error) {
	decoded, err := backend.DecodeSpec[v1alpha1.KollectSnapshotSinkSpec](cfg, string(v1alpha1.SnapshotGit))
	if err != nil {
		return nil, err
	}
	spec := &decoded
	ep, err := b.endpoint(spec.Endpoint)
	if err != nil {
		return nil, err
	}
	s := &Sink{b: b, endpoint: spec.Endpoint, prune: true, message: DefaultCommitMessage,
		author: object.Signature{Name: DefaultAuthorName, Email: DefaultAuthorEmail}}
	if s.tree, err = tree.SpecFor(*spec); err != nil {
		return nil, err
	}
	if err := s.applyGit(spec.Git); err != nil {
		return nil, err
	}
	sec, err := readSecret(ctx, cfg, spec, creds)
	if err != nil {
		return nil, err
	}
	if ep.Protocol != "file" {
		if s.auth, err = buildAuth(spec, ep, sec, b.Egress); err != nil {
			return nil, err
		}
		if sec == nil && spec.Git != nil && spec.Git.Auth != nil {
			s.authWithoutSecret = spec.Git.Auth.Type
		}
	}
	if ep.Protocol == "http" || ep.Protocol == "https" {
		tlsCfg, err := egress.TLSConfig(ctx, spec.TLS, cfg.Namespace, creds)
		if err != nil {
			return nil, err
		}
		s.http = limitTransport{rt: b.Egress.HTTPTransport(tlsCfg), max: b.maxFetch()}
	}
	layout, err := json.Marshal(s.tree)
	if err != nil {
		return nil, err
	}
	s.layout, s.m = string(layout), b.acquire(spec.Endpoint, s.branch)
	return s, nil
}

// endpoint parses and admits spec.endpoint.
func (b *Backend) endpoint(raw string) (*transport.Endpoint, error) {
	ep, err := transport.NewEndpoint(raw)
	if err != nil {
		return nil, sink.Permanent(fmt.Errorf("spec.endpoint %q is not a Git URL: %w", raw, err))
	}
	switch ep.Protocol {
	case "http", "https", "ssh":
		if ep.Password != "" {
			return nil, sink.Permanent(fmt.Errorf("spec.endpoint must not carry credentials; put them in the Secret named by spec.secretRef"))
		}
		return ep, nil
	case "file": // the form Validate admits; the opt-in is the operator's, as in admission
		if !b.Egress.AllowLocalFiles {
			return nil, sink.Permanent(fmt.Errorf("spec.endpoint: a file:// repository is on the exporter's own file system and the operator does not allow file sinks: %w", egress.ErrDenied))
		}
		return ep, nil
	}
	// Unreachable after Validate (git:// is refused there); kept for a
	// protocol go-git may learn.
	return nil, sink.Permanent(fmt.Errorf("spec.endpoint: %s:// is not supported (use https://, ssh:// or user@host:path)", ep.Protocol))
}

// applyGit validates and applies spec.git.
func (s *Sink) applyGit(g *v1alpha1.GitSink) error {
	if g == nil {
		return nil
	}
	s.branch = g.Branch
	s.force = g.PushPolicy == pushForcePush // the CRD's enum: Commit or ForcePush
	if g.Prune != nil {
		s.prune = *g.Prune
	}
	if g.CommitMessage != "" { // placeholders checked by Validate
		s.message = g.CommitMessage
	}
	if g.Author != nil {
		if g.Author.Name == "" || g.Author.Email == "" {
			return sink.Permanent(fmt.Errorf("spec.git.author needs name and email"))
		}
		s.author = object.Signature{Name: g.Author.Name, Email: g.Author.Email}
	}
	return nil
}

// closeIdle releases a sink's idle HTTP connections.
func closeIdle(rt http.RoundTripper) {
	if c, ok := rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
