package git

import (
	"context"
	"errors"
	"fmt"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/tree"
)

// Drift checks that the branch still holds snap for its inventory. It
// lists the remote's references; when the branch's tip is the one the
// mirror knows, and this process pushed or verified the inventory's files
// since, that is all. Otherwise it fetches the tip (depth 1, as a refused
// push does), which tells the paths other commits changed: the
// inventory's State must name snap's revision and checksum, and, unless
// no changed path is one of the inventory's files, the snapshot is
// rendered and its files' blob ids compared with the tree's. Another
// writer's commit that leaves the inventory's files alone is not drift.
func (s *Sink) Drift(ctx context.Context, snap sink.Snapshot) (string, error) {
	inv := snap.Envelope.Inventory
	ctx = s.ctx(ctx)
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	branch, err := s.m.resolveBranch(ctx, s.auth)
	if err != nil {
		return "", s.classify(ctx, fmt.Sprintf("check %s in git %s", inv, s.endpoint), err)
	}
	op := fmt.Sprintf("check %s in git %s branch %s", inv, s.endpoint, branch)
	tip, err := s.m.remoteTip(ctx, branch, s.auth)
	if err != nil {
		return "", s.classify(ctx, op, err)
	}
	if !s.m.loaded || tip != s.m.tip {
		if _, err := s.m.sync(ctx, branch, s.auth); err != nil {
			return "", s.classify(ctx, op, err)
		}
	}
	reason, err := s.drift(ctx, &snap)
	if err != nil {
		return "", s.classify(ctx, op, err)
	}
	return reason, nil
}

// drift compares the mirror's tip with snap. Call with m.mu held.
func (s *Sink) drift(ctx context.Context, snap *sink.Snapshot) (string, error) {
	env := snap.Envelope
	var files held
	if s.StreamsRows() {
		files = newLookup(s.m.objects(), s.m.root).file
	} else {
		all, err := s.m.objects().files(s.m.root)
		if err != nil {
			return "", err
		}
		files = inMap(all)
	}
	statePath := tree.StatePath(env.Cluster, env.Inventory)
	prev, ok := s.m.readState(files, env)
	switch {
	case !ok:
		if _, found := files(statePath); found {
			return "state file " + statePath + " unreadable", nil
		}
		return "state file " + statePath + " missing", nil
	case prev.Revision > env.Revision:
		return "", nil // a newer snapshot is on its way
	case prev.Revision != env.Revision || prev.Checksum != env.Checksum:
		return fmt.Sprintf("state file %s names revision %d checksum %s, want revision %d checksum %s",
			statePath, prev.Revision, prev.Checksum, env.Revision, env.Checksum), nil
	}
	if s.m.clean[s.modelKey(env)] != nil {
		return "", nil
	}
	ex, err := s.compare(ctx, *snap)
	defer ex.release()
	if err != nil || ex == nil {
		return "", err
	}
	return describe(ex, files, statePath), nil
}

// compare plans the full write of snap as if it were new: streamed for a
// perResource layout, else from the loaded snapshot.
func (s *Sink) compare(ctx context.Context, snap sink.Snapshot) (*export, error) {
	snap.Replay, snap.Deleted = false, false
	if s.StreamsRows() {
		return s.prepareStreamed(ctx, snap)
	}
	full, err := snap.WithFull(ctx)
	if err != nil {
		return nil, err
	}
	return s.prepareFull(full)
}

// describe names the first difference an export found.
func describe(ex *export, held held, statePath string) string {
	for _, c := range ex.changes {
		_, found := held(c.path)
		switch {
		case stateFile(c.path):
		case c.remove:
			return "file " + c.path + " left over"
		case found:
			return "file " + c.path + " changed"
		default:
			return "file " + c.path + " missing"
		}
	}
	return "state file " + statePath + " lists other files"
}

// remoteTip returns the commit the remote's branch points at (zero when
// there is no such branch): one reference listing, no objects.
func (m *mirror) remoteTip(ctx context.Context, branch string, auth transport.AuthMethod) (plumbing.Hash, error) {
	refs, err := m.remote(memory.NewStorage()).ListContext(ctx, &gogit.ListOptions{Auth: auth, ProxyOptions: m.proxy})
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("list remote references: %w", err)
	}
	name := plumbing.NewBranchReferenceName(branch)
	for _, r := range refs {
		if r.Name() == name {
			return r.Hash(), nil
		}
	}
	return plumbing.ZeroHash, nil
}
