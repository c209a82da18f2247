package gitlab

import (
	"context"
	"fmt"
	"net/http"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/tree"
)

// inventoryBranch is the stable source branch of one inventory in
// merge_request mode: <prefix><cluster>/<namespace>/<name>, segments
// sanitised as in paths (a cluster inventory's namespace is _cluster), so
// no two inventories share a branch and no branch name is a prefix folder
// of another.
func (s *Sink) inventoryBranch(env busv1.Envelope) string {
	ns := env.Inventory.Namespace
	if ns == "" {
		ns = tree.ClusterScoped
	}
	return s.prefix + tree.Sanitize(env.Cluster) + "/" + tree.Sanitize(ns) + "/" + tree.Sanitize(env.Inventory.Name)
}

// ensureMergeRequest keeps one merge request open from src to target
// while src holds changes, titled from the title template. After a commit
// it opens one unless one is open. Without a commit it opens one only when
// src exists, differs from target, and its head was never proposed in a
// merge request (one merged or closed at that head is left alone).
func (s *Sink) ensureMergeRequest(ctx context.Context, env busv1.Envelope, src, target string, committed bool) error {
	title := expand(s.title, env)
	open, err := s.c.listMergeRequests(ctx, "opened", src, target)
	if err != nil {
		return fmt.Errorf("list merge requests from %s: %w", src, err)
	}
	if len(open) > 0 {
		if open[0].Title == title || !committed {
			return nil
		}
		if err := s.c.setMergeRequestTitle(ctx, open[0].IID, title); err != nil {
			return fmt.Errorf("retitle merge request !%d: %w", open[0].IID, err)
		}
		return nil
	}
	if !committed {
		proposed, err := s.proposed(ctx, src, target)
		if err != nil || proposed {
			return err
		}
	}
	err = s.c.createMergeRequest(ctx, src, target, title)
	if statusOf(err) == http.StatusConflict {
		return nil // another writer opened it in between
	}
	if err != nil {
		return fmt.Errorf("open merge request from %s to %s: %w", src, target, err)
	}
	return nil
}

// proposed reports whether src needs no new merge request: it does not
// exist, points where target does, or its head already was the head of a
// merge request (merged or closed).
func (s *Sink) proposed(ctx context.Context, src, target string) (bool, error) {
	sb, found, err := s.c.getBranch(ctx, src)
	if err != nil || !found {
		return true, wrapIf("read branch "+src, err)
	}
	tb, found, err := s.c.getBranch(ctx, target)
	if err != nil || !found {
		return true, wrapIf("read branch "+target, err)
	}
	if sb.Commit.ID == tb.Commit.ID {
		return true, nil
	}
	all, err := s.c.listMergeRequests(ctx, "all", src, target)
	if err != nil {
		return false, fmt.Errorf("list merge requests from %s: %w", src, err)
	}
	for _, mr := range all {
		if mr.SHA == sb.Commit.ID {
			return true, nil
		}
	}
	return false, nil
}
