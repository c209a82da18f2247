package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
)

// remoteName is the mirror's only remote.
const remoteName = "origin"

// defaultBranch is the branch of an empty remote without spec.git.branch.
const defaultBranch = "main"

// mirror is the local bare copy of one repository branch, shared by the
// Backend's sinks writing to it. mu serialises their exports.
type mirror struct {
	key  string
	mu   sync.Mutex
	repo *gogit.Repository
	refs int // sinks holding the mirror, guarded by Backend.mu
	// branch is the resolved branch, "" until the first export resolved
	// the remote's default; guarded by mu.
	branch string
	// proxy makes go-git dial an ssh remote through the Backend's policy.
	proxy transport.ProxyOptions
}

// mirrorKey is the cache name of endpoint's branch ("" for the default).
func mirrorKey(endpoint, branch string) string {
	sum := sha256.Sum256([]byte(endpoint + "\x00" + branch))
	return hex.EncodeToString(sum[:12])
}

// acquire returns the mirror of endpoint's branch, opening it on first use.
func (b *Backend) acquire(endpoint, branch string) (*mirror, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := mirrorKey(endpoint, branch)
	if m := b.mirrors[key]; m != nil {
		m.refs++
		return m, nil
	}
	repo, err := openRepo(b.CacheDir, key, endpoint)
	if err != nil {
		return nil, err
	}
	if b.mirrors == nil {
		b.mirrors = map[string]*mirror{}
	}
	m := &mirror{key: key, repo: repo, refs: 1, branch: branch, proxy: sshProxy(b.Egress, endpoint)}
	b.mirrors[key] = m
	return m, nil
}

// release drops a sink's hold on m; the last one forgets it (a CacheDir
// clone stays on disk for the next sink).
func (b *Backend) release(m *mirror) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if m.refs--; m.refs <= 0 {
		delete(b.mirrors, m.key)
	}
}

// openRepo opens or creates the bare mirror: in memory when cacheDir is
// empty, else under cacheDir/key. An unreadable clone is made anew.
func openRepo(cacheDir, key, endpoint string) (*gogit.Repository, error) {
	var repo *gogit.Repository
	var err error
	if cacheDir == "" {
		repo, err = gogit.Init(memory.NewStorage(), nil)
	} else {
		dir := filepath.Join(cacheDir, key)
		if repo, err = gogit.PlainOpen(dir); err != nil {
			if rmErr := os.RemoveAll(dir); rmErr != nil {
				return nil, fmt.Errorf("reset mirror %s: %w", dir, rmErr)
			}
			repo, err = gogit.PlainInit(dir, true)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("open mirror: %w", err)
	}
	if _, err := repo.Remote(remoteName); errors.Is(err, gogit.ErrRemoteNotFound) {
		_, err = repo.CreateRemote(&config.RemoteConfig{Name: remoteName, URLs: []string{endpoint}})
		if err != nil {
			return nil, fmt.Errorf("configure mirror remote: %w", err)
		}
	}
	return repo, nil
}

// resolveBranch returns the branch to write: spec.git.branch, else the
// remote HEAD's branch, else main. Call with m.mu held.
func (m *mirror) resolveBranch(ctx context.Context, auth transport.AuthMethod) (string, error) {
	if m.branch != "" {
		return m.branch, nil
	}
	remote, err := m.repo.Remote(remoteName)
	if err != nil {
		return "", err
	}
	refs, err := remote.ListContext(ctx, &gogit.ListOptions{Auth: auth, ProxyOptions: m.proxy})
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		m.branch = defaultBranch
		return m.branch, nil
	}
	if err != nil {
		return "", fmt.Errorf("list remote references: %w", err)
	}
	m.branch = defaultBranch
	for _, r := range refs {
		if r.Name() == plumbing.HEAD && r.Type() == plumbing.SymbolicReference && r.Target().IsBranch() {
			m.branch = r.Target().Short()
		}
	}
	return m.branch, nil
}

// trackingRef is the mirror's copy of the remote branch.
func trackingRef(branch string) plumbing.ReferenceName {
	return plumbing.NewRemoteReferenceName(remoteName, branch)
}

// fetch updates the tracking ref of branch and returns its commit, nil
// when the remote has no such branch (an empty repository included).
func (m *mirror) fetch(ctx context.Context, branch string, auth transport.AuthMethod) (*object.Commit, error) {
	spec := config.RefSpec("+" + plumbing.NewBranchReferenceName(branch).String() + ":" + trackingRef(branch).String())
	err := m.repo.FetchContext(ctx, &gogit.FetchOptions{RemoteName: remoteName, RefSpecs: []config.RefSpec{spec},
		Auth: auth, Tags: gogit.NoTags, Force: true, ProxyOptions: m.proxy})
	switch {
	case err == nil, errors.Is(err, gogit.NoErrAlreadyUpToDate):
	case errors.Is(err, transport.ErrEmptyRemoteRepository), errors.Is(err, gogit.NoMatchingRefSpecError{}):
		if err := m.repo.Storer.RemoveReference(trackingRef(branch)); err != nil {
			return nil, fmt.Errorf("forget remote branch %s: %w", branch, err)
		}
		return nil, nil
	default:
		return nil, fmt.Errorf("fetch branch %s: %w", branch, err)
	}
	return m.commitAt(trackingRef(branch))
}

// commitAt returns the commit ref points to, nil when ref does not exist.
func (m *mirror) commitAt(ref plumbing.ReferenceName) (*object.Commit, error) {
	r, err := m.repo.Reference(ref, true)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read reference %s: %w", ref, err)
	}
	c, err := m.repo.CommitObject(r.Hash())
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", r.Hash(), err)
	}
	return c, nil
}

// push moves the local branch to commit and pushes it, forced or as a
// fast-forward; on success the tracking ref follows.
func (m *mirror) push(ctx context.Context, branch string, commit plumbing.Hash, auth transport.AuthMethod, force bool) error {
	local := plumbing.NewBranchReferenceName(branch)
	if err := m.repo.Storer.SetReference(plumbing.NewHashReference(local, commit)); err != nil {
		return fmt.Errorf("set branch %s: %w", branch, err)
	}
	spec := local.String() + ":" + local.String()
	if force {
		spec = "+" + spec
	}
	err := m.repo.PushContext(ctx, &gogit.PushOptions{RemoteName: remoteName, RefSpecs: []config.RefSpec{config.RefSpec(spec)},
		Auth: auth, Force: force, ProxyOptions: m.proxy})
	if err != nil && !errors.Is(err, gogit.NoErrAlreadyUpToDate) {
		return fmt.Errorf("push branch %s: %w", branch, err)
	}
	if err := m.repo.Storer.SetReference(plumbing.NewHashReference(trackingRef(branch), commit)); err != nil {
		return fmt.Errorf("set remote branch %s: %w", branch, err)
	}
	return nil
}
