package gitlab

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/tree"
)

// head is what the branch a write plans against holds for one inventory.
type head struct {
	ref      string // the branch read
	prev     tree.State
	hasState bool
}

// attempt plans snap against the branch dst (or base, when dst does not
// exist yet) and commits the changes, if any, to dst.
func (s *Sink) attempt(ctx context.Context, snap sink.Snapshot, dst, base string, delta bool) (committed bool, err error) {
	env := snap.Envelope
	start, err := s.startBranch(ctx, dst, base)
	if err != nil {
		return false, err
	}
	h := head{ref: or(start, dst)}
	if err := s.readState(ctx, &h, env); err != nil {
		return false, err
	}
	if h.hasState && env.Revision < h.prev.Revision && !snap.Replay {
		return false, nil
	}
	var actions []action
	var ix *tree.Index
	subject := CommitSubject
	key := modelKey(env)
	s.forget(key) // marked again once committed or verified
	switch {
	case snap.Deleted:
		s.takeModel(key)
		actions, err = s.removal(ctx, h, env)
		subject = DeleteSubject
	default:
		ok := false
		if delta && snap.Delta != nil {
			actions, ix, ok, err = s.deltaActions(ctx, h, env, snap.Delta)
		}
		if !ok && err == nil {
			if snap, err = snap.WithFull(ctx); err == nil {
				actions, ix, err = s.export(ctx, h, snap.Envelope)
			}
		}
	}
	if err != nil || len(actions) == 0 {
		s.keepModel(key, ix)
		return false, err
	}
	res, err := s.c.createCommit(ctx, commitRequest{Branch: dst, StartBranch: start, CommitMessage: message(subject, env),
		AuthorName: AuthorName, AuthorEmail: AuthorEmail, Actions: actions})
	if err != nil {
		return false, fmt.Errorf("commit to branch %s: %w", dst, err)
	}
	s.committed(key, dst, res, snap.Deleted)
	s.keepModel(key, ix)
	return true, nil
}

// startBranch returns "" when dst exists, else the branch a commit creating
// dst starts from (base; "" too in an empty project).
func (s *Sink) startBranch(ctx context.Context, dst, base string) (string, error) {
	_, found, err := s.c.getBranch(ctx, dst)
	if err != nil || found {
		return "", wrapIf("read branch "+dst, err)
	}
	if s.existing && s.mode == ModeDirect {
		return "", sink.Permanent(fmt.Errorf("branch %q does not exist and provisioning.mode is existing", dst))
	}
	if dst == base {
		return "", nil // an empty project: the commit creates its first branch
	}
	if _, found, err := s.c.getBranch(ctx, base); err != nil || !found {
		if err == nil {
			err = sink.Permanent(fmt.Errorf("branch %q to start %q from does not exist", base, dst))
		}
		return "", wrapIf("read branch "+base, err)
	}
	return base, nil
}

// readState reads the inventory's State from h.ref. An unreadable State is
// rewritten; the files it listed are then not pruned.
func (s *Sink) readState(ctx context.Context, h *head, env busv1.Envelope) error {
	data, found, err := s.c.rawFile(ctx, tree.StatePath(env.Cluster, env.Inventory), h.ref)
	if err != nil {
		return fmt.Errorf("read state from branch %s: %w", h.ref, err)
	}
	if !found {
		return nil
	}
	st, err := tree.ParseState(data)
	if err != nil {
		return nil //nolint:nilerr // an unreadable State is rewritten; its files are not pruned
	}
	if st.FileShards > 0 {
		shards := make([]string, st.FileShards)
		for i := range shards {
			shards[i] = tree.ShardPath(env.Cluster, env.Inventory, i)
		}
		rt, err := s.listRemote(ctx, h.ref, shards)
		if err != nil {
			return fmt.Errorf("list state shards on branch %s: %w", h.ref, err)
		}
		st, err = st.WithShardFiles(env.Cluster, env.Inventory, func(p string) ([]byte, bool, error) {
			if !rt.has(p) {
				return nil, false, nil
			}
			return s.c.rawFile(ctx, p, h.ref)
		})
		if err != nil {
			return fmt.Errorf("read state from branch %s: %w", h.ref, err)
		}
	}
	h.prev, h.hasState = st, true
	return nil
}

// export renders env and returns the actions making h.ref hold it (none
// when it already holds the same content), and, for a perResource layout,
// the inventory's index once they are committed.
func (s *Sink) export(ctx context.Context, h head, env busv1.Envelope) ([]action, *tree.Index, error) {
	var files []tree.File
	var ix *tree.Index
	var err error
	if s.tree.Mode == tree.ModePerResource {
		ix, files, err = tree.NewIndex(s.tree, env, h.prev.FileShards)
	} else {
		files, err = tree.Render(s.tree, env)
	}
	if err != nil {
		return nil, nil, sink.Permanent(err)
	}
	var probe []tree.File // env rendered as the branch's State would have
	if h.hasState && h.prev.Checksum == env.Checksum && h.prev.Generation == env.Generation {
		p := env
		p.Revision, p.ExportedAt = h.prev.Revision, h.prev.ExportedAt
		if probe, err = tree.Render(s.tree, p); err != nil {
			return nil, nil, sink.Permanent(err)
		}
	}
	state, shards, stale, err := tree.NewFileSet(filePaths(files), h.prev.FileShards).Writes(env, true)
	if err != nil {
		return nil, nil, err
	}
	paths := append(append(append(filePaths(files), state.Path), h.prev.Files...), stale...)
	rt, err := s.listRemote(ctx, h.ref, append(paths, filePaths(shards)...))
	if err != nil {
		return nil, nil, fmt.Errorf("list branch %s: %w", h.ref, err)
	}
	existing := rt.existing(files, probe)
	if probe != nil {
		write, remove := tree.Plan(h.prev, existing, probe)
		if len(write) == 0 && len(remove) == 0 && slices.Equal(filePaths(probe), h.prev.Files) {
			return nil, ix, nil
		}
	}
	write, remove := tree.Plan(h.prev, existing, files)
	for _, f := range append([]tree.File{state}, shards...) {
		if rt.ids[f.Path] != blobID(f.Data) {
			write = append(write, f)
		}
	}
	for _, p := range stale {
		if rt.has(p) {
			remove = append(remove, p)
		}
	}
	actions := make([]action, 0, len(write)+len(remove))
	for _, f := range write {
		actions = append(actions, fileAction(rt.has(f.Path), f))
	}
	for _, p := range remove {
		actions = append(actions, action{Action: "delete", FilePath: p})
	}
	return actions, ix, nil
}

// deltaActions plans delta d from the inventory's index when the branch's
// State is the index's revision: the actions write only the files of the
// rows d names, the State and the shards that changed. false when the
// delta cannot be applied alone (the full snapshot is written then); the
// index is taken from the sink either way and returned for a commit.
func (s *Sink) deltaActions(ctx context.Context, h head, env busv1.Envelope, d *busv1.Delta) ([]action, *tree.Index, bool, error) {
	ix := s.takeModel(modelKey(env))
	if ix == nil || !h.hasState || h.prev.Revision != ix.Revision() || h.prev.Checksum != ix.Checksum() {
		return nil, nil, false, nil
	}
	u, ok, err := ix.Plan(env, d)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	var actions []action
	for _, e := range u.Edits {
		switch {
		case e.Remove:
			actions = append(actions, action{Action: "delete", FilePath: e.Path})
		case e.Data == nil:
			return nil, nil, false, nil // a file moved by a collision: written from the full snapshot
		default:
			actions = append(actions, fileAction(ix.Touches(e.Path), tree.File{Path: e.Path, Data: e.Data}))
		}
	}
	state, err := ix.Commit(u)
	if err != nil {
		return nil, nil, false, err
	}
	var statePaths []string
	for _, e := range state {
		statePaths = append(statePaths, e.Path)
	}
	rt, err := s.listRemote(ctx, h.ref, statePaths)
	if err != nil {
		return nil, nil, false, fmt.Errorf("list branch %s: %w", h.ref, err)
	}
	for _, e := range state {
		switch {
		case e.Remove && rt.has(e.Path):
			actions = append(actions, action{Action: "delete", FilePath: e.Path})
		case !e.Remove:
			actions = append(actions, fileAction(rt.has(e.Path), tree.File{Path: e.Path, Data: e.Data}))
		}
	}
	return actions, ix, true, nil
}

// removal returns the actions deleting the inventory's files and State.
func (s *Sink) removal(ctx context.Context, h head, env busv1.Envelope) ([]action, error) {
	paths := append(slices.Clone(h.prev.Files), tree.StatePath(env.Cluster, env.Inventory))
	for i := 0; i < h.prev.FileShards; i++ {
		paths = append(paths, tree.ShardPath(env.Cluster, env.Inventory, i))
	}
	rt, err := s.listRemote(ctx, h.ref, paths)
	if err != nil {
		return nil, fmt.Errorf("list branch %s: %w", h.ref, err)
	}
	slices.Sort(paths)
	var actions []action
	for _, p := range slices.Compact(paths) {
		if rt.has(p) {
			actions = append(actions, action{Action: "delete", FilePath: p})
		}
	}
	return actions, nil
}

// fileAction writes f: update when it exists, create otherwise. Bytes that
// are not UTF-8 travel as base64.
func fileAction(exists bool, f tree.File) action {
	a := action{Action: "create", FilePath: f.Path, Content: string(f.Data), Encoding: "text"}
	if exists {
		a.Action = "update"
	}
	if !utf8.Valid(f.Data) {
		a.Content, a.Encoding = base64.StdEncoding.EncodeToString(f.Data), "base64"
	}
	return a
}

func filePaths(files []tree.File) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

// message is the commit message: the subject, a blank line and the
// revision and checksum trailers, as the git sink writes them.
func message(subject string, env busv1.Envelope) string {
	return fmt.Sprintf("%s\n\n%s: %d\n%s: %s\n", expand(subject, env), TrailerRevision, env.Revision, TrailerChecksum, env.Checksum)
}

// expand fills {cluster} {namespace} {name} {itemCount} {checksum} (12
// hex digits); a cluster inventory's namespace reads tree.ClusterScoped.
func expand(tmpl string, env busv1.Envelope) string {
	ns := env.Inventory.Namespace
	if ns == "" {
		ns = tree.ClusterScoped
	}
	sum := env.Checksum
	if len(sum) > 12 {
		sum = sum[:12]
	}
	return strings.NewReplacer("{cluster}", env.Cluster, "{namespace}", ns, "{name}", env.Inventory.Name,
		"{itemCount}", strconv.Itoa(env.ItemCount), "{checksum}", sum).Replace(tmpl)
}

// modelKey names an inventory's index in the sink.
func modelKey(env busv1.Envelope) string {
	return env.Cluster + "\x00" + env.Inventory.Namespace + "\x00" + env.Inventory.Name
}

// takeModel removes and returns the inventory's index, nil when there is none.
func (s *Sink) takeModel(key string) *tree.Index {
	s.mu.Lock()
	defer s.mu.Unlock()
	ix := s.models[key]
	delete(s.models, key)
	return ix
}

// keepModel keeps ix as the inventory's index; nil keeps none.
func (s *Sink) keepModel(key string, ix *tree.Index) {
	if ix == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.models == nil {
		s.models = map[string]*tree.Index{}
	}
	s.models[key] = ix
}
