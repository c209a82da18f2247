package git

import (
	"context"
	"fmt"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"
	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/tree"
)

// commit clones the branch into a worktree in memory, lets edit change
// its files, and commits and pushes the result as a user would: the
// damage Drift must find, or another writer's unrelated commit.
func (r *reader) commit(ctx context.Context, message string, edit func(fs billy.Filesystem) error) error {
	ctx = withTransport(ctx, r.rt)
	fs := memfs.New()
	repo, err := gogit.CloneContext(ctx, memory.NewStorage(), fs, &gogit.CloneOptions{URL: r.url, Auth: r.auth,
		ReferenceName: plumbing.NewBranchReferenceName(r.branch), SingleBranch: true, Tags: gogit.NoTags})
	if err != nil {
		return fmt.Errorf("clone %s: %w", r.url, err)
	}
	if err := edit(fs); err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return err
	}
	if err := wt.AddWithOptions(&gogit.AddOptions{All: true}); err != nil {
		return fmt.Errorf("add: %w", err)
	}
	sig := &object.Signature{Name: "someone", Email: "someone@example.com", When: time.Now()}
	if _, err := wt.Commit(message, &gogit.CommitOptions{Author: sig, AllowEmptyCommits: true}); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if err := repo.PushContext(ctx, &gogit.PushOptions{Auth: r.auth}); err != nil {
		return fmt.Errorf("push: %w", err)
	}
	return nil
}

// stateFiles returns the files the inventory's State lists in fs.
func stateFiles(fs billy.Filesystem, cluster string, inv busv1.NamespacedName) ([]string, error) {
	data, err := util.ReadFile(fs, tree.StatePath(cluster, inv))
	if err != nil {
		return nil, fmt.Errorf("read the state: %w", err)
	}
	st, err := tree.ParseState(data)
	if err == nil {
		st, err = st.WithShardFiles(cluster, inv, func(p string) ([]byte, bool, error) {
			d, err := util.ReadFile(fs, p)
			return d, err == nil, nil
		})
	}
	if err != nil {
		return nil, err
	}
	if len(st.Files) == 0 {
		return nil, fmt.Errorf("the state of %s lists no files", inv)
	}
	return st.Files, nil
}

// Damage implements sinktest.Damager: it deletes the last file the
// inventory's State lists, in a commit of its own.
func (r *reader) Damage(ctx context.Context, cluster string, inv busv1.NamespacedName) error {
	return r.commit(ctx, "delete a file by hand", func(fs billy.Filesystem) error {
		files, err := stateFiles(fs, cluster, inv)
		if err != nil {
			return err
		}
		return fs.Remove(files[len(files)-1])
	})
}
