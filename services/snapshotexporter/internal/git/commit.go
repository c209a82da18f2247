package git

import (
	"fmt"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/tree"
)

// DeleteSubject is the commit subject that removes a deleted inventory.
const DeleteSubject = "chore({cluster}/{namespace}/{name}): remove inventory"

// head is what the branch holds for one inventory.
type head struct {
	o        objects
	base     *object.Commit
	files    map[string]plumbing.Hash
	prev     tree.State
	hasState bool
}

// readHead lists the base's files and reads the inventory's State.
func (s *Sink) readHead(base *object.Commit, env *busv1.Envelope) (*head, error) {
	h := &head{o: objects{s: s.m.repo.Storer}, base: base}
	var root plumbing.Hash
	if base != nil {
		root = base.TreeHash
	}
	var err error
	if h.files, err = h.o.files(root); err != nil {
		return nil, err
	}
	if sh, ok := h.files[tree.StatePath(env.Cluster, env.Inventory)]; ok {
		data, err := h.o.blob(sh)
		if err != nil {
			return nil, err
		}
		// An unreadable State is rewritten; its files are then not pruned.
		if st, err := tree.ParseState(data); err == nil {
			h.prev, h.hasState = st, true
		}
	}
	return h, nil
}

// existing reports a path's bytes on the branch. A file whose blob hash
// equals that of its candidate's bytes is answered with those bytes
// without reading the blob.
func (h *head) existing(candidates []tree.File) func(string) ([]byte, bool) {
	cand := make(map[string][]byte, len(candidates))
	for _, f := range candidates {
		cand[f.Path] = f.Data
	}
	return func(p string) ([]byte, bool) {
		bh, ok := h.files[p]
		if !ok {
			return nil, false
		}
		if c, ok := cand[p]; ok && plumbing.ComputeHash(plumbing.BlobObject, c) == bh {
			return c, true
		}
		data, err := h.o.blob(bh)
		if err != nil {
			return nil, true // present but unreadable: rewrite it
		}
		return data, true
	}
}

// commit builds the export commit of snap on base; the zero hash means
// there is nothing to commit.
func (s *Sink) commit(base *object.Commit, snap sink.Snapshot) (plumbing.Hash, error) {
	env := snap.Envelope
	h, err := s.readHead(base, &env)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if h.hasState && env.Revision < h.prev.Revision && !snap.Replay {
		return plumbing.ZeroHash, nil
	}
	var changes []change
	subject := s.message
	if snap.Deleted {
		changes, subject = h.removal(env), DeleteSubject
		s.renderer.Forget(env.Cluster, env.Inventory)
	} else {
		changes, err = s.exportChanges(h, env)
		if err != nil {
			return plumbing.ZeroHash, err
		}
	}
	if len(changes) == 0 {
		return plumbing.ZeroHash, nil
	}
	var root, parent plumbing.Hash
	if base != nil {
		root, parent = base.TreeHash, base.Hash
	}
	newRoot, err := h.o.apply(root, changes)
	if err != nil || newRoot == root && base != nil {
		return plumbing.ZeroHash, err
	}
	msg := fmt.Sprintf("%s\n\n%s: %d\n%s: %s\n", s.subject(subject, env.Cluster, env.Inventory.Namespace, env.Inventory.Name, env.ItemCount, env.Checksum),
		TrailerRevision, env.Revision, TrailerChecksum, env.Checksum)
	return h.o.commit(newRoot, parent, s.signature(), msg)
}

// removal removes the inventory's files and State.
func (h *head) removal(env busv1.Envelope) []change {
	var changes []change
	paths := append(slices.Clone(h.prev.Files), tree.StatePath(env.Cluster, env.Inventory))
	for _, p := range paths {
		if _, ok := h.files[p]; ok {
			changes = append(changes, change{path: p, remove: true})
		}
	}
	return changes
}

// exportChanges renders env and plans the writes and removals; none when
// the branch already holds the same content.
func (s *Sink) exportChanges(h *head, env busv1.Envelope) ([]change, error) {
	if h.hasState && h.prev.Checksum == env.Checksum && h.prev.Generation == env.Generation {
		probe := env
		probe.Revision, probe.ExportedAt = h.prev.Revision, h.prev.ExportedAt
		files, err := s.renderer.Render(s.tree, probe)
		if err != nil {
			return nil, err
		}
		if write, remove := tree.Plan(h.prev, h.existing(files), files); len(write) == 0 && len(remove) == 0 &&
			slices.Equal(tree.StateOf(probe, files).Files, h.prev.Files) {
			return nil, nil
		}
	}
	files, err := s.renderer.Render(s.tree, env)
	if err != nil {
		return nil, err
	}
	write, remove := tree.Plan(h.prev, h.existing(files), files)
	if !s.prune {
		remove = nil
	}
	state, err := tree.StateOf(env, files).Marshal()
	if err != nil {
		return nil, err
	}
	changes := make([]change, 0, len(write)+len(remove)+1)
	for _, f := range write {
		changes = append(changes, change{path: f.Path, data: f.Data})
	}
	for _, p := range remove {
		changes = append(changes, change{path: p, remove: true})
	}
	return append(changes, change{path: tree.StatePath(env.Cluster, env.Inventory), data: state}), nil
}
