package gitlab

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/tree"
)

// Sink writes snapshots to a GitLab project through its REST API. It
// implements sink.Sink, sink.DeltaWriter, sink.Checker and
// sink.DriftChecker.
type Sink struct {
	c        *client
	endpoint string
	tree     tree.Spec
	mode     string
	branch   string // spec.gitlab.branch, "" for the project's default
	target   string // merge request target, "" for the project's default
	prefix   string
	title    string
	existing bool // provisioning.mode existing: never create a branch

	mu   sync.Mutex
	proj *project // once read
	// models are the perResource indexes of the inventories, by modelKey,
	// kept between exports so that a delta writes only its rows.
	models map[string]*tree.Index
	// clean marks, by modelKey, the commit at which the inventory's files
	// were known to be what its State says (see Drift).
	clean map[string]mark
}

// Write commits s's files for its inventory in one commit: nothing when the
// branch already holds this content, the snapshot is older than the
// branch's (and not a replay), or a deleted inventory left no files. In
// merge_request mode it then makes sure one merge request is open from the
// inventory's branch.
func (s *Sink) Write(ctx context.Context, snap sink.Snapshot) error {
	return s.writeWrapped(ctx, snap, false)
}

// WriteDelta commits only the files of the rows snap.Delta names when the
// sink's index of a perResource inventory holds the delta's base and the
// branch's State agrees; otherwise it writes the full snapshot.
func (s *Sink) WriteDelta(ctx context.Context, snap sink.Snapshot) error {
	return s.writeWrapped(ctx, snap, true)
}

func (s *Sink) writeWrapped(ctx context.Context, snap sink.Snapshot, delta bool) error {
	op := fmt.Sprintf("write %s to gitlab project %s", snap.Envelope.Inventory, s.c.project)
	if err := ctx.Err(); err != nil {
		return sink.Classify(ctx, op, err, permanent)
	}
	return sink.Classify(ctx, op, s.write(ctx, snap, delta), permanent)
}

func (s *Sink) write(ctx context.Context, snap sink.Snapshot, delta bool) error {
	dst, base, err := s.branches(ctx, snap.Envelope)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		committed, err := s.attempt(ctx, snap, dst, base, delta)
		// A 400 answer to a commit means the branch changed under the plan
		// (another writer): plan again once from what it holds now.
		if statusOf(err) == http.StatusBadRequest && attempt == 1 && ctx.Err() == nil {
			continue
		}
		if err != nil {
			return err
		}
		if s.mode == ModeMergeRequest {
			return s.ensureMergeRequest(ctx, snap.Envelope, dst, base, committed)
		}
		return nil
	}
}

// branches returns the branch the inventory's commits go to and the branch
// it starts from when missing: in direct mode spec.gitlab.branch (default
// the project's default branch) and the default branch; in merge_request
// mode the inventory's branch and the merge request's target.
func (s *Sink) branches(ctx context.Context, env busv1.Envelope) (dst, base string, err error) {
	def, err := s.projectDefault(ctx)
	if err != nil {
		return "", "", err
	}
	if s.mode == ModeMergeRequest {
		return s.inventoryBranch(env), or(s.target, def), nil
	}
	return or(s.branch, def), def, nil
}

// projectDefault returns the project's default branch ("main" for an empty
// project without one), read once.
func (s *Sink) projectDefault(ctx context.Context) (string, error) {
	p, err := s.project(ctx)
	return p.DefaultBranch, err
}

// project reads the project once.
func (s *Sink) project(ctx context.Context) (project, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proj != nil {
		return *s.proj, nil
	}
	p, err := s.c.getProject(ctx)
	if err != nil {
		return project{}, fmt.Errorf("read project: %w", err)
	}
	p.DefaultBranch = or(p.DefaultBranch, "main")
	s.proj = &p
	return p, nil
}

// Check reads the project and the branch the sink writes to (in
// merge_request mode the target branch). Refused credentials, an unknown
// project, a missing merge request target, and a missing branch the sink
// may not or cannot create, are permanent errors.
func (s *Sink) Check(ctx context.Context) error {
	op := fmt.Sprintf("check gitlab project %s", s.c.project)
	p, err := s.project(ctx)
	if err != nil {
		return sink.Classify(ctx, op, err, permanent)
	}
	name, mustExist := or(s.branch, p.DefaultBranch), s.existing
	if s.mode == ModeMergeRequest {
		name, mustExist = or(s.target, p.DefaultBranch), true
	}
	if _, found, err := s.c.getBranch(ctx, name); err != nil || found {
		return sink.Classify(ctx, op+": read branch "+name, err, permanent)
	}
	if mustExist {
		return sink.Permanent(fmt.Errorf("%s: branch %q does not exist", op, name))
	}
	if p.EmptyRepo {
		return nil // the first commit creates it
	}
	// A missing branch is created from the default branch, which must exist.
	_, found, err := s.c.getBranch(ctx, p.DefaultBranch)
	if err != nil {
		return sink.Classify(ctx, op+": read branch "+p.DefaultBranch, err, permanent)
	}
	if !found {
		return sink.Permanent(fmt.Errorf("%s: neither branch %q nor the default branch %q exists", op, name, p.DefaultBranch))
	}
	return nil
}

// Close releases idle connections.
func (s *Sink) Close(context.Context) error {
	s.c.http.CloseIdleConnections()
	return nil
}

// wrapIf wraps err with op; nil stays nil.
func wrapIf(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}
