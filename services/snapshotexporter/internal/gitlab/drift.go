package gitlab

import (
	"context"
	"fmt"
	"strings"

	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/tree"
)

// mark is the commit of a branch at which an inventory's files were known
// to be what its State says: committed or verified by this sink.
type mark struct{ ref, commit string }

// Drift checks that the branch still holds snap for its inventory. It
// reads the branch (one call): when its head is the commit at which this
// sink committed or verified the inventory (or a commit of this sink that
// followed it touching only other inventories), that is all. Otherwise it
// reads the inventory's State, which must name snap's revision and
// checksum, lists the inventory's folders and compares the files' blob
// ids with the rendered snapshot's, as a write plans: no file content is
// downloaded. In merge_request mode the branch is the inventory's branch,
// or the target while it does not exist.
func (s *Sink) Drift(ctx context.Context, snap sink.Snapshot) (string, error) {
	op := fmt.Sprintf("check %s in gitlab project %s", snap.Envelope.Inventory, s.c.project)
	reason, err := s.drift(ctx, snap)
	if err != nil {
		return "", sink.Classify(ctx, op, err, permanent)
	}
	return reason, nil
}

func (s *Sink) drift(ctx context.Context, snap sink.Snapshot) (string, error) {
	env := snap.Envelope
	dst, base, err := s.branches(ctx, env)
	if err != nil {
		return "", err
	}
	ref := dst
	b, found, err := s.c.getBranch(ctx, dst)
	if err == nil && !found && s.mode == ModeMergeRequest {
		ref = base
		b, found, err = s.c.getBranch(ctx, base)
	}
	if err != nil {
		return "", fmt.Errorf("read branch %s: %w", ref, err)
	}
	if !found {
		return "branch " + ref + " missing", nil
	}
	key := modelKey(env)
	if s.isClean(key, mark{ref, b.Commit.ID}) {
		return "", nil
	}
	h := head{ref: ref}
	if err := s.readState(ctx, &h, env); err != nil {
		return "", err
	}
	statePath := tree.StatePath(env.Cluster, env.Inventory)
	switch {
	case !h.hasState:
		return "state file " + statePath + " missing or unreadable", nil
	case h.prev.Revision > env.Revision:
		return "", nil // a newer snapshot is on its way
	case h.prev.Revision != env.Revision || h.prev.Checksum != env.Checksum:
		return fmt.Sprintf("state file %s names revision %d checksum %s, want revision %d checksum %s",
			statePath, h.prev.Revision, h.prev.Checksum, env.Revision, env.Checksum), nil
	}
	full, err := snap.Full(ctx)
	if err != nil {
		return "", err
	}
	actions, _, err := s.export(ctx, h, full)
	if err != nil {
		return "", err
	}
	if len(actions) == 0 {
		s.setClean(key, mark{ref, b.Commit.ID})
		return "", nil
	}
	return describe(actions, statePath), nil
}

// describe names the first file an export would change.
func describe(actions []action, statePath string) string {
	for _, a := range actions {
		if strings.HasPrefix(a.FilePath, ".kollect/") {
			continue
		}
		switch a.Action {
		case "delete":
			return "file " + a.FilePath + " left over"
		case "update":
			return "file " + a.FilePath + " changed"
		default:
			return "file " + a.FilePath + " missing"
		}
	}
	return "state file " + statePath + " lists other files"
}

// isClean reports whether the inventory of key is marked clean at m.
func (s *Sink) isClean(key string, m mark) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clean[key] == m
}

// setClean marks the inventory of key clean at m.
func (s *Sink) setClean(key string, m mark) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clean == nil {
		s.clean = map[string]mark{}
	}
	s.clean[key] = m
}

// committed records a commit of this sink on ref: it touched only the
// inventory of key (marked clean at it, or forgotten when removed), so
// every inventory clean at its parent is clean at it too.
func (s *Sink) committed(key, ref string, c commitResult, removed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clean == nil {
		s.clean = map[string]mark{}
	}
	if len(c.ParentIDs) == 1 {
		parent := mark{ref, c.ParentIDs[0]}
		for k, m := range s.clean {
			if m == parent {
				s.clean[k] = mark{ref, c.ID}
			}
		}
	}
	delete(s.clean, key)
	if !removed && c.ID != "" {
		s.clean[key] = mark{ref, c.ID}
	}
}

// forget drops the clean mark of the inventory of key.
func (s *Sink) forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.clean, key)
}
