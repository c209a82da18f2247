package git

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/memory"
	"kollect.dev/kollect/pkg/tree"
)

// remoteName is the name fetches give the remote.
const remoteName = "origin"

// defaultBranch is the branch of an empty remote without spec.git.branch.
const defaultBranch = "main"

// mirror is what the exporter knows of one repository branch, shared by
// the Backend's sinks writing to it; mu serialises their exports. It holds
// no clone: only the branch tip it last fetched or pushed, the tree
// objects of that tip and the blobs under .kollect/ (the States), and the
// perResource index of each inventory it exported. Exports build on the
// tip without fetching; a push the remote refuses because the branch moved
// fetches the new tip (depth 1) and the export is built again on it.
type mirror struct {
	key      string
	endpoint string
	mu       sync.Mutex
	refs     int // sinks holding the mirror, guarded by Backend.mu
	// branch is the resolved branch, "" until the first export resolved
	// the remote's default; guarded by mu.
	branch string
	// proxy makes go-git dial an ssh remote through the Backend's policy.
	proxy transport.ProxyOptions
	// scratch is the folder fetches unpack into (Backend.CacheDir), so
	// that the blobs of a large tip land on disk, not in memory; "" keeps
	// them in memory. Nothing stays there after the fetch.
	scratch string

	// The rest is guarded by mu.
	store  *memory.ObjectStorage
	loaded bool          // tip and store reflect the remote as last seen
	tip    plumbing.Hash // the branch's commit; zero: no such branch yet
	root   plumbing.Hash // tip's tree; zero: none
	live   int           // objects in store after the last sweep
	models map[string]*tree.Index
	// clean holds, by model key, the inventories whose files on the tip
	// are known to be what their State says (pushed or verified by this
	// process), each with the test of whether a path is one of its
	// files: a sync that changes one of them drops it, and Drift renders
	// and compares the snapshot again.
	clean map[string]func(path string) bool
}

// mirrorKey is the name of endpoint's branch ("" for the default).
func mirrorKey(endpoint, branch string) string {
	sum := sha256.Sum256([]byte(endpoint + "\x00" + branch))
	return hex.EncodeToString(sum[:12])
}

// acquire returns the mirror of endpoint's branch, creating it on first use.
func (b *Backend) acquire(endpoint, branch string) *mirror {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := mirrorKey(endpoint, branch)
	if m := b.mirrors[key]; m != nil {
		m.refs++
		return m
	}
	if b.mirrors == nil {
		b.mirrors = map[string]*mirror{}
	}
	m := &mirror{key: key, endpoint: endpoint, refs: 1, branch: branch, proxy: sshProxy(b.Egress, endpoint),
		scratch: b.CacheDir, store: newStore(), models: map[string]*tree.Index{}, clean: map[string]func(string) bool{}}
	b.mirrors[key] = m
	return m
}

// release drops a sink's hold on m; the last one forgets it.
func (b *Backend) release(m *mirror) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if m.refs--; m.refs <= 0 {
		delete(b.mirrors, m.key)
	}
}

func newStore() *memory.ObjectStorage {
	return &memory.NewStorage().ObjectStorage
}

// objects reads and writes m's object store.
func (m *mirror) objects() objects { return objects{s: m.store} }

// remote returns a go-git remote of m's endpoint over st.
func (m *mirror) remote(st storage.Storer) *gogit.Remote {
	return gogit.NewRemote(st, &config.RemoteConfig{Name: remoteName, URLs: []string{m.endpoint}})
}

// resolveBranch returns the branch to write: spec.git.branch, else the
// remote HEAD's branch, else main. Call with m.mu held.
func (m *mirror) resolveBranch(ctx context.Context, auth transport.AuthMethod) (string, error) {
	if m.branch != "" {
		return m.branch, nil
	}
	refs, err := m.remote(memory.NewStorage()).ListContext(ctx, &gogit.ListOptions{Auth: auth, ProxyOptions: m.proxy})
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

// trackingRef is where a fetch puts the remote branch.
func trackingRef(branch string) plumbing.ReferenceName {
	return plumbing.NewRemoteReferenceName(remoteName, branch)
}

// ensure loads the branch's tip when m does not know it.
func (m *mirror) ensure(ctx context.Context, branch string, auth transport.AuthMethod) error {
	if m.loaded {
		return nil
	}
	_, err := m.sync(ctx, branch, auth)
	return err
}

// sync fetches the branch's tip (depth 1), keeps its trees and .kollect
// blobs, and forgets the index of every inventory whose files or State
// changed since the tip m knew. It returns the paths that changed (nil
// when m knew no tip).
func (m *mirror) sync(ctx context.Context, branch string, auth transport.AuthMethod) ([]string, error) {
	var st storage.Storer = memory.NewStorage()
	if m.scratch != "" {
		dir, err := os.MkdirTemp(m.scratch, "fetch-")
		if err != nil {
			return nil, fmt.Errorf("fetch into %s: %w", m.scratch, err)
		}
		defer func() { _ = os.RemoveAll(dir) }()
		st = filesystem.NewStorage(osfs.New(dir), cache.NewObjectLRU(16*cache.MiByte))
	}
	spec := config.RefSpec("+" + plumbing.NewBranchReferenceName(branch).String() + ":" + trackingRef(branch).String())
	err := m.remote(st).FetchContext(ctx, &gogit.FetchOptions{RefSpecs: []config.RefSpec{spec}, Depth: 1,
		Auth: auth, Tags: gogit.NoTags, Force: true, ProxyOptions: m.proxy})
	var tip, root plumbing.Hash
	switch {
	case err == nil, errors.Is(err, gogit.NoErrAlreadyUpToDate):
		ref, err := st.Reference(trackingRef(branch))
		if err != nil {
			return nil, fmt.Errorf("read fetched branch %s: %w", branch, err)
		}
		c, err := object.GetCommit(st, ref.Hash())
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", ref.Hash(), err)
		}
		tip, root = c.Hash, c.TreeHash
	case errors.Is(err, transport.ErrEmptyRemoteRepository), errors.Is(err, gogit.NoMatchingRefSpecError{}):
	default:
		return nil, fmt.Errorf("fetch branch %s: %w", branch, err)
	}
	next := newStore()
	if err := keepTip(objects{s: st}, objects{s: next}, root, ""); err != nil {
		return nil, err
	}
	var changed []string
	if m.loaded {
		if err := diffTrees(m.objects(), m.root, objects{s: next}, root, "", &changed); err != nil {
			return nil, err
		}
		m.forgetTouched(changed)
	} else {
		m.models, m.clean = map[string]*tree.Index{}, map[string]func(string) bool{}
	}
	m.store, m.tip, m.root, m.loaded, m.live = next, tip, root, true, len(next.Objects)
	return changed, nil
}

// keepTip copies into dst the trees under h and the blobs of the .kollect
// folder.
func keepTip(src, dst objects, h plumbing.Hash, prefix string) error {
	if h.IsZero() {
		return nil
	}
	t, err := object.GetTree(src.s, h)
	if err != nil {
		return fmt.Errorf("read tree %s: %w", h, err)
	}
	if err := copyObject(src.s, dst.s, plumbing.TreeObject, h); err != nil {
		return err
	}
	for _, e := range t.Entries {
		p := prefix + e.Name
		switch {
		case e.Mode == filemode.Dir:
			if err := keepTip(src, dst, e.Hash, p+"/"); err != nil {
				return err
			}
		case e.Mode.IsFile() && stateFile(p):
			if err := copyObject(src.s, dst.s, plumbing.BlobObject, e.Hash); err != nil {
				return err
			}
		}
	}
	return nil
}

// stateFile reports whether p is under the .kollect folder.
func stateFile(p string) bool { return strings.HasPrefix(p, ".kollect/") }

// copyObject copies object h of type t from src to dst.
func copyObject(src, dst storer.EncodedObjectStorer, t plumbing.ObjectType, h plumbing.Hash) error {
	if dst.HasEncodedObject(h) == nil {
		return nil
	}
	obj, err := src.EncodedObject(t, h)
	if err != nil {
		return fmt.Errorf("read %s %s: %w", t, h, err)
	}
	r, err := obj.Reader()
	if err != nil {
		return fmt.Errorf("read %s %s: %w", t, h, err)
	}
	defer func() { _ = r.Close() }()
	out := dst.NewEncodedObject()
	out.SetType(t)
	w, err := out.Writer()
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		return fmt.Errorf("copy %s %s: %w", t, h, err)
	}
	if err := w.Close(); err != nil {
		return err
	}
	_, err = dst.SetEncodedObject(out)
	return err
}

// forgetTouched drops the index, and the clean mark, of every inventory
// one of paths belongs to.
func (m *mirror) forgetTouched(paths []string) {
	for key, ix := range m.models {
		for _, p := range paths {
			if ix.Touches(p) {
				delete(m.models, key)
				break
			}
		}
	}
	for key, touches := range m.clean {
		for _, p := range paths {
			if touches(p) {
				delete(m.clean, key)
				break
			}
		}
	}
}

// sweep drops from the store what the tip no longer needs once it has
// grown to twice what it held after the last sweep: older trees, blobs
// outside .kollect/, commits.
func (m *mirror) sweep() error {
	if len(m.store.Objects) < 2*m.live+1024 {
		return nil
	}
	next := newStore()
	if err := keepTip(m.objects(), objects{s: next}, m.root, ""); err != nil {
		return err
	}
	m.store, m.live = next, len(next.Objects)
	return nil
}

// drop removes the blobs of hs from the store: row files a push sent,
// which no export reads again.
func (m *mirror) drop(hs []plumbing.Hash) {
	for _, h := range hs {
		delete(m.store.Objects, h)
		delete(m.store.Blobs, h)
	}
}
