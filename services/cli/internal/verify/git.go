package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// The trailers the Git and GitLab sinks add to every commit
// (docs/sinks/git.md).
const (
	trailerRevision = "Kollect-Revision"
	trailerChecksum = "Kollect-Checksum"
)

// Git reads the revisions of one inventory document from a Git repository's
// history: every commit that changed the file, oldest first. A commit with
// the Kollect trailers is a revision (rows from the file, checksum from the
// trailer, previousChecksum from a JSON envelope); a commit that changed the
// file without them is a problem.
type Git struct {
	// Repo is a local repository folder or a URL to clone (into memory).
	Repo string
	// Path is the inventory's document in the repository (the sink's
	// pathTemplate rendered, for example inventory/team-a/web.json).
	Path string
	// Ref is the branch, tag or commit to start from; default HEAD.
	Ref string
}

// Revisions implements Source.
func (g Git) Revisions(ctx context.Context) ([]Revision, error) {
	repo, err := g.open(ctx)
	if err != nil {
		return nil, err
	}
	ref := g.Ref
	if ref == "" {
		ref = "HEAD"
	}
	head, err := repo.ResolveRevision(plumbing.Revision(ref))
	if err != nil {
		return nil, fmt.Errorf("resolve %s in %s: %w", ref, g.Repo, err)
	}
	path := g.Path
	iter, err := repo.Log(&git.LogOptions{From: *head, FileName: &path, Order: git.LogOrderCommitterTime})
	if err != nil {
		return nil, fmt.Errorf("read the history of %s: %w", g.Path, err)
	}
	var commits []*object.Commit
	err = iter.ForEach(func(c *object.Commit) error {
		commits = append(commits, c)
		return ctx.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read the history of %s: %w", g.Path, err)
	}
	slices.Reverse(commits)
	var out []Revision
	var last uint64
	for _, c := range commits {
		r, skip, err := g.revision(c, last)
		if err != nil {
			return nil, err
		}
		if !skip {
			out = append(out, r)
			last = r.Revision
		}
	}
	return out, nil
}

func (g Git) open(ctx context.Context) (*git.Repository, error) {
	if st, err := os.Stat(g.Repo); err == nil && st.IsDir() {
		r, err := git.PlainOpenWithOptions(g.Repo, &git.PlainOpenOptions{DetectDotGit: true})
		if err != nil {
			return nil, fmt.Errorf("open repository %s: %w", g.Repo, err)
		}
		return r, nil
	}
	r, err := git.CloneContext(ctx, memory.NewStorage(), nil, &git.CloneOptions{URL: g.Repo})
	if err != nil {
		return nil, fmt.Errorf("clone %s: %w", g.Repo, err)
	}
	return r, nil
}

// revision reads commit c; last is the revision of the commit before.
// skip is true for a commit that removed the file.
func (g Git) revision(c *object.Commit, last uint64) (Revision, bool, error) {
	where := "commit " + c.Hash.String()[:12]
	f, err := c.File(g.Path)
	if errors.Is(err, object.ErrFileNotFound) {
		return Revision{}, true, nil
	}
	if err != nil {
		return Revision{}, false, fmt.Errorf("read %s at %s: %w", g.Path, where, err)
	}
	rev, sum := trailers(c.Message)
	if sum == "" || rev == 0 {
		return Revision{Revision: last, Where: where,
			Problem: fmt.Sprintf("%s changed %s without the %s and %s trailers: not an export", where, g.Path, trailerRevision, trailerChecksum)}, false, nil
	}
	r := Revision{Revision: rev, Checksum: sum, Where: where}
	rd, err := f.Reader()
	if err != nil {
		return r, false, fmt.Errorf("read %s at %s: %w", g.Path, where, err)
	}
	defer func() { _ = rd.Close() }()
	b, err := io.ReadAll(rd)
	if err != nil {
		return r, false, fmt.Errorf("read %s at %s: %w", g.Path, where, err)
	}
	d, err := parseDocument(b)
	if err != nil {
		r.Problem = fmt.Sprintf("%s: %s is not an exported snapshot: %v", where, g.Path, err)
		return r, false, nil
	}
	r.Rows, r.PreviousChecksum = d.rows, d.previous
	if d.envelope && (d.checksum != sum || d.revision != rev) {
		r.Problem = fmt.Sprintf("%s: the file names revision %d checksum %s, the trailers revision %d checksum %s",
			where, d.revision, d.checksum, rev, sum)
	}
	return r, false, nil
}

// trailers returns the Kollect-Revision and Kollect-Checksum trailers of a
// commit message (zero and empty when absent).
func trailers(msg string) (uint64, string) {
	var rev uint64
	var sum string
	for _, line := range strings.Split(msg, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case trailerRevision:
			rev, _ = strconv.ParseUint(v, 10, 64)
		case trailerChecksum:
			sum = v
		}
	}
	return rev, sum
}
