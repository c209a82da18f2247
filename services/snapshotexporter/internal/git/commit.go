package git

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/tree"
)

// DeleteSubject is the commit subject that removes a deleted inventory.
const DeleteSubject = "chore({cluster}/{namespace}/{name}): remove inventory"

// export is the commit one export makes, built once and applied again on
// a new tip when another writer moved the branch without touching the
// inventory's files.
type export struct {
	changes []change
	subject string
	env     busv1.Envelope // header only
	key     string
	// ix is the inventory's index after the export (perResource), kept
	// by the mirror once the commit is pushed; nil forgets it.
	ix *tree.Index
	// owns tells the inventory's paths after the export, for the mirror's
	// clean marks; nil for a removal.
	owns func(path string) bool
	// spill holds the blobs of a streamed full write (nil otherwise),
	// and blobs are those of them the commit sends.
	spill *spill
	blobs []plumbing.Hash
}

// release removes the export's spill file.
func (e *export) release() {
	if e != nil {
		e.spill.close()
	}
}

// touchedBy reports whether another writer's changed paths reach the
// export's inventory, so that it must be planned again on the new tip.
func (e *export) touchedBy(paths []string) bool {
	mine := make(map[string]bool, len(e.changes))
	for _, c := range e.changes {
		mine[c.path] = true
	}
	for _, p := range paths {
		if mine[p] || e.ix != nil && e.ix.Touches(p) {
			return true
		}
	}
	return false
}

// modelKey names an inventory's index in the mirror: sinks with another
// layout writing the same branch keep their own.
func (s *Sink) modelKey(env busv1.Envelope) string {
	return env.Cluster + "\x00" + env.Inventory.Namespace + "\x00" + env.Inventory.Name + "\x00" + s.layout
}

// prepare plans the export of snap: from the inventory's index when snap
// is a delta on the revision it holds, else from the full snapshot (loaded
// into snap when needed). nil means there is nothing to commit.
func (s *Sink) prepare(ctx context.Context, snap *sink.Snapshot, delta bool) (*export, error) {
	env := snap.Envelope
	key := s.modelKey(env)
	if ix := s.m.models[key]; delta && ix != nil && snap.Delta != nil && !snap.Deleted {
		u, ok, err := ix.Plan(env, snap.Delta)
		if err != nil {
			return nil, err
		}
		if ok {
			delete(s.m.models, key) // in flight: kept again once pushed
			delete(s.m.clean, key)
			state, err := ix.Commit(u)
			if err != nil {
				return nil, err
			}
			return &export{changes: changesOf(u.Edits, state), subject: s.message, env: header(env), key: key, ix: ix,
				owns: ix.Touches}, nil
		}
	}
	if s.StreamsRows() {
		return s.prepareStreamed(ctx, *snap)
	}
	if !snap.Loaded() {
		full, err := snap.WithFull(ctx)
		if err != nil {
			return nil, err
		}
		*snap = full
	}
	return s.prepareFull(*snap)
}

// prepareFull plans the export of the full snapshot snap against the
// branch's files and State.
func (s *Sink) prepareFull(snap sink.Snapshot) (*export, error) {
	env := snap.Envelope
	key := s.modelKey(env)
	delete(s.m.models, key)
	delete(s.m.clean, key)
	held, err := s.m.objects().files(s.m.root)
	if err != nil {
		return nil, err
	}
	prev, hasState := s.m.readState(inMap(held), env)
	if hasState && env.Revision < prev.Revision && !snap.Replay {
		return nil, nil
	}
	ex := &export{subject: s.message, env: header(env), key: key}
	if snap.Deleted {
		ex.subject, ex.changes = DeleteSubject, removal(inMap(held), prev, env)
		return ex, nil
	}
	var files []tree.File
	if s.tree.Mode == tree.ModePerResource {
		ex.ix, files, err = tree.NewIndex(s.tree, env, prev.FileShards)
	} else {
		probe := env
		if hasState && prev.Checksum == env.Checksum && prev.Generation == env.Generation {
			// The document and the index carry the revision and export
			// time: render them as the branch has them to see whether
			// anything else changed.
			probe.Revision, probe.ExportedAt = prev.Revision, prev.ExportedAt
		}
		files, err = tree.Render(s.tree, probe)
	}
	if err != nil {
		return nil, err
	}
	write, remove := plan(held, prev, files)
	ex.owns = owner(env, ex.ix, files)
	if hasState && prev.Checksum == env.Checksum && prev.Generation == env.Generation &&
		len(write) == 0 && len(remove) == 0 && slices.Equal(paths(files), prev.Files) {
		if ex.ix != nil {
			s.m.models[key] = ex.ix
		}
		s.m.clean[key] = ex.owns
		return nil, nil
	}
	if s.tree.Mode != tree.ModePerResource {
		if files, err = tree.Render(s.tree, env); err != nil {
			return nil, err
		}
		write, remove = plan(held, prev, files)
	}
	if !s.prune {
		remove = nil
	}
	set := tree.NewFileSet(paths(files), prev.FileShards)
	state, shards, stale, err := set.Writes(env, true)
	if err != nil {
		return nil, err
	}
	for _, f := range write {
		ex.changes = append(ex.changes, change{path: f.Path, data: f.Data})
	}
	for _, p := range remove {
		ex.changes = append(ex.changes, change{path: p, remove: true})
	}
	ex.changes = append(ex.changes, change{path: state.Path, data: state.Data})
	for _, f := range shards {
		ex.changes = append(ex.changes, change{path: f.Path, data: f.Data})
	}
	for _, p := range stale {
		if _, ok := held[p]; ok {
			ex.changes = append(ex.changes, change{path: p, remove: true})
		}
	}
	return ex, nil
}

// owner returns the test of whether a path is one of the inventory's
// files, its State or a shard of its file list: the index's when it has
// one, else over files.
func owner(env busv1.Envelope, ix *tree.Index, files []tree.File) func(string) bool {
	if ix != nil {
		return ix.Touches
	}
	st := tree.StatePath(env.Cluster, env.Inventory)
	shards := strings.TrimSuffix(st, ".json") + ".files/"
	set := make(map[string]bool, len(files))
	for _, f := range files {
		set[f.Path] = true
	}
	return func(p string) bool { return p == st || strings.HasPrefix(p, shards) || set[p] }
}

// plan returns the files whose bytes the branch does not hold and the
// paths of prev's files that files no longer have and the branch still
// holds.
func plan(held map[string]plumbing.Hash, prev tree.State, files []tree.File) (write []tree.File, remove []string) {
	keep := make(map[string]bool, len(files))
	for _, f := range files {
		keep[f.Path] = true
		if h, ok := held[f.Path]; !ok || h != plumbing.ComputeHash(plumbing.BlobObject, f.Data) {
			write = append(write, f)
		}
	}
	for _, p := range prev.Files {
		if _, ok := held[p]; ok && !keep[p] {
			remove = append(remove, p)
		}
	}
	return write, remove
}

// removal removes the inventory's files, its State and the State's shards.
func removal(held held, prev tree.State, env busv1.Envelope) []change {
	paths := append(slices.Clone(prev.Files), tree.StatePath(env.Cluster, env.Inventory))
	for i := 0; i < prev.FileShards; i++ {
		paths = append(paths, tree.ShardPath(env.Cluster, env.Inventory, i))
	}
	var changes []change
	for _, p := range paths {
		if _, ok := held(p); ok {
			changes = append(changes, change{path: p, remove: true})
		}
	}
	return changes
}

// readState returns the inventory's State on the branch with its Files
// read from the shards when it has them; false when there is none or it is
// unreadable (it is then rewritten, and its files are not pruned).
func (m *mirror) readState(held held, env busv1.Envelope) (tree.State, bool) {
	h, ok := held(tree.StatePath(env.Cluster, env.Inventory))
	if !ok {
		return tree.State{}, false
	}
	data, err := m.objects().blob(h)
	if err != nil {
		return tree.State{}, false
	}
	st, err := tree.ParseState(data)
	if err != nil {
		return tree.State{}, false
	}
	st, err = st.WithShardFiles(env.Cluster, env.Inventory, func(p string) ([]byte, bool, error) {
		h, ok := held(p)
		if !ok {
			return nil, false, nil
		}
		data, err := m.objects().blob(h)
		return data, err == nil, err
	})
	if err != nil {
		return tree.State{}, false
	}
	return st, true
}

// changesOf turns an index's edits into changes.
func changesOf(edits ...[]tree.Edit) []change {
	var out []change
	for _, es := range edits {
		for _, e := range es {
			out = append(out, change{path: e.Path, data: e.Data, blob: plumbing.Hash(e.Blob), remove: e.Remove})
		}
	}
	return out
}

// paths lists the paths of files, in their order.
func paths(files []tree.File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// header is env without its items.
func header(env busv1.Envelope) busv1.Envelope {
	env.Items = nil
	return env
}

// commitAndPush stores ex's changes on the branch's tip as one commit and
// pushes exactly its new objects. A commit that would change nothing is
// not made.
func (s *Sink) commitAndPush(ctx context.Context, branch string, ex *export) error {
	m := s.m
	var created []plumbing.Hash
	o := m.objects()
	root, err := o.apply(m.root, ex.changes, &created)
	if err != nil {
		return err
	}
	if root != m.root {
		env := ex.env
		msg := fmt.Sprintf("%s\n\n%s: %d\n%s: %s\n", s.subject(ex.subject, env.Cluster, env.Inventory.Namespace, env.Inventory.Name, env.ItemCount, env.Checksum),
			TrailerRevision, env.Revision, TrailerChecksum, env.Checksum)
		commit, err := o.commit(root, m.tip, s.signature(), msg)
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		objs := append(append(created, ex.blobs...), commit)
		if err := m.push(ctx, branch, commit, root, objs, ex.spill.over(m.store), s.auth, s.force); err != nil {
			return err
		}
		m.drop(rowBlobs(ex.changes))
	}
	if ex.ix != nil {
		m.models[ex.key] = ex.ix
	}
	if ex.owns != nil {
		m.clean[ex.key] = ex.owns
	}
	return m.sweep()
}

// rowBlobs are the blobs of the changes outside .kollect/: sent once,
// never read again.
func rowBlobs(changes []change) []plumbing.Hash {
	state := map[plumbing.Hash]bool{}
	var out []plumbing.Hash
	for _, c := range changes {
		if c.data == nil {
			continue
		}
		h := plumbing.ComputeHash(plumbing.BlobObject, c.data)
		if stateFile(c.path) {
			state[h] = true
		} else {
			out = append(out, h)
		}
	}
	return slices.DeleteFunc(out, func(h plumbing.Hash) bool { return state[h] })
}
