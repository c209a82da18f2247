package verify_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/cli/internal/verify"
)

const docPath = "inventory/team-a/web.json"

// gitRepo is a local repository pushing to a repository of a git
// http-backend server.
type gitRepo struct {
	t    *testing.T
	r    *git.Repository
	dir  string
	url  string
	when time.Time
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	srv := testenv.StartGit(t, testenv.GitOptions{})
	url := srv.CreateRepo(t, "inventory")
	dir := t.TempDir()
	r, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{url}}); err != nil {
		t.Fatal(err)
	}
	return &gitRepo{t: t, r: r, dir: dir, url: url, when: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
}

// commit writes content to docPath and commits it with msg, then pushes.
func (g *gitRepo) commit(content []byte, msg string) {
	g.t.Helper()
	wt, err := g.r.Worktree()
	if err != nil {
		g.t.Fatal(err)
	}
	full := filepath.Join(g.dir, docPath)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(full, content, 0o644); err != nil {
		g.t.Fatal(err)
	}
	if _, err := wt.Add(docPath); err != nil {
		g.t.Fatal(err)
	}
	g.when = g.when.Add(time.Minute)
	sig := &object.Signature{Name: "kollect", Email: "kollect@kollect.dev", When: g.when}
	if _, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		g.t.Fatal(err)
	}
	if err := g.r.Push(&git.PushOptions{RemoteName: "origin"}); err != nil {
		g.t.Fatalf("push: %v", err)
	}
}

// export commits env as the Git sink's JSON document layout does: the
// envelope, subject and trailers of docs/sinks/git.md.
func (g *gitRepo) export(env busv1.Envelope) {
	g.t.Helper()
	b, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		g.t.Fatal(err)
	}
	g.commit(append(b, '\n'), exportMessage(env))
}

func exportMessage(env busv1.Envelope) string {
	return fmt.Sprintf("chore(%s/%s/%s): export %d items @ %s\n\nKollect-Revision: %d\nKollect-Checksum: %s\n",
		env.Cluster, env.Inventory.Namespace, env.Inventory.Name, env.ItemCount, env.Checksum[:12], env.Revision, env.Checksum)
}

func verifyGit(t *testing.T, repo string) verify.Result {
	t.Helper()
	revs, err := verify.Git{Repo: repo, Path: docPath}.Revisions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := verify.Check(revs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGitHistory(t *testing.T) {
	t.Run("an untouched history verifies, cloned over HTTP and from a folder", func(t *testing.T) {
		g := newGitRepo(t)
		for _, env := range chain(t) {
			g.export(env)
		}
		for _, repo := range []string{g.url, g.dir} {
			res := verifyGit(t, repo)
			if res.First != nil || res.Checked != 3 || res.Linked != 2 {
				t.Fatalf("%s: %+v (first %+v), want 3 revisions and 2 links verified", repo, res, res.First)
			}
		}
	})
	t.Run("a commit that edits the file by hand is found", func(t *testing.T) {
		g := newGitRepo(t)
		envs := chain(t)
		for _, env := range envs {
			g.export(env)
		}
		b, _ := json.MarshalIndent(envs[2], "", "  ")
		g.commit([]byte(strings.Replace(string(b), `"web:a"`, `"evil:a"`, 1)), "fix image\n")
		res := verifyGit(t, g.url)
		if res.First == nil || res.First.Revision != 3 || !strings.Contains(res.First.Reason, "without the Kollect-Revision") {
			t.Fatalf("mismatch %+v, want one after revision 3 naming the commit without trailers", res.First)
		}
	})
	t.Run("an export commit whose file was tampered with is found at its revision", func(t *testing.T) {
		g := newGitRepo(t)
		envs := chain(t)
		g.export(envs[0])
		tampered := envs[1]
		tampered.Items = append([]busv1.Row(nil), envs[1].Items...)
		tampered.Items[1] = row("b", 4)
		b, _ := json.MarshalIndent(tampered, "", "  ")
		g.commit(b, exportMessage(envs[1]))
		g.export(envs[2])
		res := verifyGit(t, g.url)
		if res.First == nil || res.First.Revision != 2 || !strings.Contains(res.First.Reason, "hash to") || res.Checked != 1 {
			t.Fatalf("result %+v, first %+v; want revision 1 verified, then a mismatch of revision 2's rows", res, res.First)
		}
	})
}
