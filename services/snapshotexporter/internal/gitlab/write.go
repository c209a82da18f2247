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
func (s *Sink) attempt(ctx context.Context, snap sink.Snapshot, dst, base string) (committed bool, err error) {
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
	subject := CommitSubject
	if snap.Deleted {
		actions, err = s.removal(ctx, h, env)
		subject = DeleteSubject
	} else {
		actions, err = s.export(ctx, h, env)
	}
	if err != nil || len(actions) == 0 {
		return false, err
	}
	_, err = s.c.createCommit(ctx, commitRequest{Branch: dst, StartBranch: start, CommitMessage: message(subject, env),
		AuthorName: AuthorName, AuthorEmail: AuthorEmail, Actions: actions})
	if err != nil {
		return false, fmt.Errorf("commit to branch %s: %w", dst, err)
	}
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
	if found {
		if st, err := tree.ParseState(data); err == nil {
			h.prev, h.hasState = st, true
		}
	}
	return nil
}

// export renders env and returns the actions making h.ref hold it; none
// when it already holds the same content.
func (s *Sink) export(ctx context.Context, h head, env busv1.Envelope) ([]action, error) {
	files, err := tree.Render(s.tree, env)
	if err != nil {
		return nil, sink.Permanent(err)
	}
	var probe []tree.File // env rendered as the branch's State would have
	if h.hasState && h.prev.Checksum == env.Checksum && h.prev.Generation == env.Generation {
		p := env
		p.Revision, p.ExportedAt = h.prev.Revision, h.prev.ExportedAt
		if probe, err = tree.Render(s.tree, p); err != nil {
			return nil, sink.Permanent(err)
		}
	}
	statePath := tree.StatePath(env.Cluster, env.Inventory)
	paths := append(append(filePaths(files), statePath), h.prev.Files...)
	rt, err := s.listRemote(ctx, h.ref, paths)
	if err != nil {
		return nil, fmt.Errorf("list branch %s: %w", h.ref, err)
	}
	existing := rt.existing(files, probe)
	if probe != nil {
		write, remove := tree.Plan(h.prev, existing, probe)
		if len(write) == 0 && len(remove) == 0 && slices.Equal(tree.StateOf(env, probe).Files, h.prev.Files) {
			return nil, nil
		}
	}
	write, remove := tree.Plan(h.prev, existing, files)
	state, err := tree.StateOf(env, files).Marshal()
	if err != nil {
		return nil, err
	}
	if rt.ids[statePath] != blobID(state) {
		write = append(write, tree.File{Path: statePath, Data: state})
	}
	actions := make([]action, 0, len(write)+len(remove))
	for _, f := range write {
		actions = append(actions, fileAction(rt.has(f.Path), f))
	}
	for _, p := range remove {
		actions = append(actions, action{Action: "delete", FilePath: p})
	}
	return actions, nil
}

// removal returns the actions deleting the inventory's files and State.
func (s *Sink) removal(ctx context.Context, h head, env busv1.Envelope) ([]action, error) {
	paths := append(slices.Clone(h.prev.Files), tree.StatePath(env.Cluster, env.Inventory))
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
