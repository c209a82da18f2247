package git

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/pkg/tree"
	"kollect.dev/kollect/pkg/tree/treetest"
)

// allowLoopback is the policy of tests: the peers listen on loopback.
var allowLoopback = egress.Policy{AllowPrivate: true}

// repoCount names a fresh repository per sink.
var repoCount atomic.Int64

// peer is a Git server with the credentials a sink uses.
type peer struct {
	g     *testenv.Git
	opts  testenv.GitOptions
	creds backend.MapCredentials
}

// startPeer starts a Git server; its Secret "git" holds the accepted
// credentials.
func startPeer(t testing.TB, opts testenv.GitOptions) *peer {
	t.Helper()
	p := &peer{g: testenv.StartGit(t, opts), opts: opts, creds: backend.MapCredentials{}}
	data := map[string][]byte{}
	switch {
	case opts.Token != "":
		data[keyToken] = []byte(opts.Token)
	case opts.Username != "":
		data[keyUsername], data[keyPassword] = []byte(opts.Username), []byte(opts.Password)
	}
	p.creds[busv1.NamespacedName{Namespace: "team-a", Name: "git"}] = data
	return p
}

// newRepo creates an empty repository and returns its name and URL.
func (p *peer) newRepo(t testing.TB) (string, string) {
	t.Helper()
	name := fmt.Sprintf("repo-%d", repoCount.Add(1))
	return name, p.g.CreateRepo(t, name)
}

// spec is a git sink spec for endpoint, using the peer's Secret and CA.
func (p *peer) spec(endpoint string) v1alpha1.KollectSnapshotSinkSpec {
	s := v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotGit, Endpoint: endpoint}
	if p.opts.Username != "" || p.opts.Token != "" {
		s.SecretRef = &v1alpha1.SecretReference{Name: "git"}
	}
	if p.opts.TLS {
		s.TLS = &v1alpha1.TLSConfig{CABundle: string(p.g.CAPEM)}
	}
	return s
}

// newSink creates a sink of b for spec with creds; the test closes it.
func newSink(t testing.TB, b *Backend, spec v1alpha1.KollectSnapshotSinkSpec, creds backend.Credentials) *Sink {
	t.Helper()
	s, err := b.New(context.Background(), cfgFor(t, spec), creds)
	if err != nil {
		t.Fatalf("new git sink: %v", err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s.(*Sink)
}

// reader reads what a sink stored from a fresh in-memory clone of the
// remote, never from the sink's mirror.
type reader struct {
	url    string
	branch string
	auth   transport.AuthMethod
	rt     http.RoundTripper
	spec   tree.Spec
}

// newReader reads the remote of sink s with the peer's credentials.
func (p *peer) newReader(t testing.TB, url string, spec v1alpha1.KollectSnapshotSinkSpec) *reader {
	t.Helper()
	ts, err := tree.SpecFor(spec)
	if err != nil {
		t.Fatalf("tree spec: %v", err)
	}
	r := &reader{url: url, branch: "main", spec: ts}
	switch {
	case p.opts.Token != "":
		r.auth = &githttp.BasicAuth{Username: "reader", Password: p.opts.Token}
	case p.opts.Username != "":
		r.auth = &githttp.BasicAuth{Username: p.opts.Username, Password: p.opts.Password}
	}
	tlsCfg, err := egress.TLSConfig(context.Background(), spec.TLS, "team-a", p.creds)
	if err != nil {
		t.Fatalf("tls config: %v", err)
	}
	r.rt = allowLoopback.HTTPTransport(tlsCfg)
	return r
}

// clone returns the head commit of the remote branch, nil when there is
// none.
func (r *reader) clone(ctx context.Context) (*gogit.Repository, *object.Commit, error) {
	repo, err := gogit.CloneContext(withTransport(ctx, r.rt), memory.NewStorage(), nil, &gogit.CloneOptions{URL: r.url, Auth: r.auth,
		ReferenceName: plumbing.NewBranchReferenceName(r.branch), SingleBranch: true, Tags: gogit.NoTags})
	if errors.Is(err, transport.ErrEmptyRemoteRepository) || errors.Is(err, gogit.NoMatchingRefSpecError{}) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("clone %s: %w", r.url, err)
	}
	ref, err := repo.Head()
	if err != nil {
		return nil, nil, err
	}
	c, err := repo.CommitObject(ref.Hash())
	return repo, c, err
}

// files returns every file of the remote branch.
func (r *reader) files(ctx context.Context) (map[string]string, error) {
	_, c, err := r.clone(ctx)
	if err != nil || c == nil {
		return nil, err
	}
	out := map[string]string{}
	iter, err := c.Files()
	if err != nil {
		return nil, err
	}
	err = iter.ForEach(func(f *object.File) error {
		s, err := f.Contents()
		out[f.Name] = s
		return err
	})
	return out, err
}

// Read implements sinktest.Reader through treetest.Reader, on the files
// of the branch's tip.
func (r *reader) Read(ctx context.Context, cluster string, inv busv1.NamespacedName) (sinktest.Projection, bool, error) {
	return treetest.Reader{Spec: r.spec, Open: func(ctx context.Context, _ string, _ busv1.NamespacedName) (treetest.ReadFile, error) {
		files, err := r.files(ctx)
		if err != nil {
			return nil, err
		}
		return func(p string) ([]byte, bool, error) {
			d, ok := files[p]
			return []byte(d), ok, nil
		}, nil
	}}.Read(ctx, cluster, inv)
}

// commits returns the subjects of the remote branch, newest first.
func (p *peer) commits(t testing.TB, repo string) []string {
	t.Helper()
	return p.g.Log(t, repo)
}

// write writes snap to s and fails the test on error.
func write(t testing.TB, s sink.Sink, snap sink.Snapshot) {
	t.Helper()
	if err := s.Write(context.Background(), snap); err != nil {
		t.Fatalf("write revision %d: %v", snap.Envelope.Revision, err)
	}
}

// lines splits the output of a git command into lines.
func lines(out string) []string {
	out = strings.TrimSpace(out)
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// cfgFor is the SinkConfig of spec for sink team-a/repo.
func cfgFor(t testing.TB, spec v1alpha1.KollectSnapshotSinkSpec) busv1.SinkConfig {
	t.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatalf("encode spec: %v", err)
	}
	return busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "git", Namespace: "team-a", Name: "repo", Cluster: "conformance", Spec: raw}
}
