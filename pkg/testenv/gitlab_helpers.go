package testenv

import (
	"fmt"
	"strings"
	"testing"
)

// GitLabCommit is one commit of a fake GitLab project.
type GitLabCommit struct {
	// Title is the message's first line; Message the whole message.
	Title, Message string
	// AuthorName and AuthorEmail are the commit's author.
	AuthorName, AuthorEmail string
}

// Files returns every file on branch of project, path to content; nil when
// the branch does not exist.
func (g *GitLab) Files(t testing.TB, project, branch string) map[string]string {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.mustProject(t, project)
	head, ok, err := p.repo.head(branch)
	if err != nil || !ok {
		return nil
	}
	entries, _, err := p.repo.tree(head, "", true)
	if err != nil {
		t.Fatalf("list %s@%s: %v", project, branch, err)
	}
	files := map[string]string{}
	for _, e := range entries {
		if e.Type != "blob" {
			continue
		}
		data, err := p.repo.git(nil, nil, "cat-file", "blob", e.ID)
		if err != nil {
			t.Fatalf("read %s@%s:%s: %v", project, branch, e.Path, err)
		}
		files[e.Path] = string(data)
	}
	return files
}

// ReadFile returns the content of path at ref (a branch or commit) of
// project, reading the bare repository with git; found is false when the
// ref or the file does not exist. It is what tests' sink Readers use.
func (g *GitLab) ReadFile(project, ref, path string) (data []byte, found bool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.project(project)
	if p == nil {
		return nil, false, fmt.Errorf("no GitLab project %s", project)
	}
	commit, ok, err := p.repo.resolve(ref)
	if err != nil || !ok {
		return nil, false, err
	}
	return p.repo.blob(commit, path)
}

// Commits returns the commits reachable from branch, newest first; nil
// when the branch does not exist.
func (g *GitLab) Commits(t testing.TB, project, branch string) []GitLabCommit {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.mustProject(t, project)
	if _, ok, _ := p.repo.head(branch); !ok {
		return nil
	}
	out, err := p.repo.git(nil, nil, "log", "--format=%an%x00%ae%x00%B%x1e", "refs/heads/"+branch)
	if err != nil {
		t.Fatalf("log %s@%s: %v", project, branch, err)
	}
	var commits []GitLabCommit
	for _, rec := range strings.Split(string(out), "\x1e") {
		f := strings.SplitN(strings.TrimPrefix(rec, "\n"), "\x00", 3)
		if len(f) != 3 {
			continue
		}
		msg := strings.TrimSuffix(f[2], "\n")
		title, _, _ := strings.Cut(msg, "\n")
		commits = append(commits, GitLabCommit{Title: title, Message: msg, AuthorName: f[0], AuthorEmail: f[1]})
	}
	return commits
}

// Branches returns the project's branch names, sorted.
func (g *GitLab) Branches(t testing.TB, project string) []string {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	b, err := g.mustProject(t, project).repo.branches()
	if err != nil {
		t.Fatalf("list branches of %s: %v", project, err)
	}
	return b
}

// DeleteBranch deletes branch, as GitLab does after merging with "delete
// source branch".
func (g *GitLab) DeleteBranch(t testing.TB, project, branch string) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, err := g.mustProject(t, project).repo.git(nil, nil, "update-ref", "-d", "refs/heads/"+branch); err != nil {
		t.Fatalf("delete branch %s of %s: %v", branch, project, err)
	}
}

// PutFile commits content at path on branch as another user would (a
// create or an update).
func (g *GitLab) PutFile(t testing.TB, project, branch, path, content string) {
	t.Helper()
	g.commitAs(t, project, branch, "edit "+path, gitLabAction{FilePath: path, Content: content})
}

// DeleteFile commits the removal of path from branch as another user would.
func (g *GitLab) DeleteFile(t testing.TB, project, branch, path string) {
	t.Helper()
	g.commitAs(t, project, branch, "remove "+path, gitLabAction{Action: "delete", FilePath: path})
}

// commitAs commits one action on an existing branch; an empty Action means
// create or update.
func (g *GitLab) commitAs(t testing.TB, project, branch, message string, a gitLabAction) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.mustProject(t, project)
	head, ok, err := p.repo.head(branch)
	if err != nil || !ok {
		t.Fatalf("commit on %s@%s: the branch does not exist (%v)", project, branch, err)
	}
	if a.Action == "" {
		a.Action = "create"
		if _, exists, _ := p.repo.blob(head, a.FilePath); exists {
			a.Action = "update"
		}
	}
	if _, err := p.repo.commit(branch, head, head, message, gitLabAuthor{"Someone Else", "someone@example.com"},
		[]gitLabAction{a}); err != nil {
		t.Fatalf("commit on %s@%s: %v", project, branch, err)
	}
}
