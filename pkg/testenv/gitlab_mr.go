package testenv

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// GitLabMergeRequest is a merge request as the fake holds it.
type GitLabMergeRequest struct {
	// IID is the merge request's number within its project.
	IID int
	// Title, State (opened, closed or merged), SourceBranch and
	// TargetBranch are GitLab's fields.
	Title, State, SourceBranch, TargetBranch string
}

// mergeRequests serves GET (state, source_branch, target_branch filters,
// paginated, newest first) and POST (source_branch, target_branch, title)
// of .../merge_requests.
func (g *GitLab) mergeRequests(w http.ResponseWriter, r *glRequest, p *glProject) {
	if r.Method == http.MethodGet {
		var out []map[string]any
		state, src, dst := r.param("state"), r.param("source_branch"), r.param("target_branch")
		for _, mr := range slices.Backward(p.mrs) {
			if (state == "" || state == "all" || state == mr.state) && (src == "" || src == mr.source) && (dst == "" || dst == mr.target) {
				out = append(out, g.mrJSON(p, mr))
			}
		}
		writeGitLabJSON(w, http.StatusOK, paginate(w, r, out))
		return
	}
	src, dst, title := r.param("source_branch"), r.param("target_branch"), r.param("title")
	if msg := g.checkNewMR(p, src, dst, title); msg != "" {
		writeGitLabError(w, http.StatusBadRequest, []string{msg})
		return
	}
	for _, mr := range p.mrs {
		if mr.state == "opened" && mr.source == src && mr.target == dst {
			writeGitLabError(w, http.StatusConflict,
				[]string{fmt.Sprintf("Another open merge request already exists for this source branch: !%d", mr.iid)})
			return
		}
	}
	g.nextMR++
	now := time.Now()
	mr := &glMR{id: g.nextMR, iid: len(p.mrs) + 1, title: title, state: "opened", source: src, target: dst,
		created: now, updated: now}
	p.mrs = append(p.mrs, mr)
	writeGitLabJSON(w, http.StatusCreated, g.mrJSON(p, mr))
}

// checkNewMR returns GitLab's validation message for a new merge request,
// or "".
func (g *GitLab) checkNewMR(p *glProject, src, dst, title string) string {
	switch {
	case src == "" || dst == "" || title == "":
		return "source_branch, target_branch and title are required"
	case src == dst:
		return "You can't use same project/branch for source and target"
	}
	if _, ok, _ := p.repo.head(src); !ok {
		return "Source branch \"" + src + "\" does not exist"
	}
	if _, ok, _ := p.repo.head(dst); !ok {
		return "Target branch \"" + dst + "\" does not exist"
	}
	return ""
}

// mergeRequest serves GET and PUT (title, state_event close|reopen) of one
// merge request.
func (g *GitLab) mergeRequest(w http.ResponseWriter, r *glRequest, p *glProject, iid string) {
	n, err := strconv.Atoi(iid)
	if err != nil || n < 1 || n > len(p.mrs) {
		writeGitLabError(w, http.StatusNotFound, "404 Not found")
		return
	}
	mr := p.mrs[n-1]
	if r.Method == http.MethodPut {
		if t := r.param("title"); t != "" {
			mr.title = t
		}
		switch r.param("state_event") {
		case "close":
			if mr.state == "opened" {
				mr.state = "closed"
			}
		case "reopen":
			if mr.state == "closed" {
				mr.state = "opened"
			}
		}
		mr.updated = time.Now()
	}
	writeGitLabJSON(w, http.StatusOK, g.mrJSON(p, mr))
}

func (g *GitLab) mrJSON(p *glProject, mr *glMR) map[string]any {
	sha := mr.sha
	if mr.state == "opened" {
		sha, _, _ = p.repo.head(mr.source)
	}
	var mergeSHA any
	if mr.mergeSHA != "" {
		mergeSHA = mr.mergeSHA
	}
	return map[string]any{
		"id": mr.id, "iid": mr.iid, "project_id": p.id, "title": mr.title, "description": "",
		"state": mr.state, "source_branch": mr.source, "target_branch": mr.target,
		"source_project_id": p.id, "target_project_id": p.id, "sha": sha, "merge_commit_sha": mergeSHA,
		"created_at": timeJSON(mr.created), "updated_at": timeJSON(mr.updated),
		"web_url": fmt.Sprintf("%s/%s/-/merge_requests/%d", g.URL, p.path, mr.iid),
	}
}

// MergeRequests returns the project's merge requests, oldest first.
func (g *GitLab) MergeRequests(t testing.TB, project string) []GitLabMergeRequest {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []GitLabMergeRequest
	for _, mr := range g.mustProject(t, project).mrs {
		out = append(out, GitLabMergeRequest{IID: mr.iid, Title: mr.title, State: mr.state,
			SourceBranch: mr.source, TargetBranch: mr.target})
	}
	return out
}

// MergeMergeRequest merges open merge request iid as GitLab's merge button
// would: a fast-forward when the target has not moved, else a merge commit
// (conflicts fail the test). The source branch stays; DeleteBranch removes
// it.
func (g *GitLab) MergeMergeRequest(t testing.TB, project string, iid int) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.mustProject(t, project)
	if iid < 1 || iid > len(p.mrs) || p.mrs[iid-1].state != "opened" {
		t.Fatalf("merge request !%d of %s is not open", iid, project)
	}
	mr := p.mrs[iid-1]
	src, _, err := p.repo.head(mr.source)
	dst, _, err2 := p.repo.head(mr.target)
	if err != nil || err2 != nil || src == "" || dst == "" {
		t.Fatalf("merge !%d: branches %s and %s must exist", iid, mr.source, mr.target)
	}
	next := src
	if _, err := p.repo.git(nil, nil, "merge-base", "--is-ancestor", dst, src); err != nil {
		tree, err := p.repo.git(nil, nil, "merge-tree", "--write-tree", dst, src)
		if err != nil {
			t.Fatalf("merge !%d: %v", iid, err)
		}
		out, err := p.repo.git([]byte(fmt.Sprintf("Merge branch '%s' into '%s'", mr.source, mr.target)),
			[]string{"GIT_AUTHOR_NAME=" + gitLabUserName, "GIT_AUTHOR_EMAIL=" + gitLabUserEmail,
				"GIT_COMMITTER_NAME=" + gitLabUserName, "GIT_COMMITTER_EMAIL=" + gitLabUserEmail},
			"commit-tree", strings.Fields(string(tree))[0], "-p", dst, "-p", src, "-F", "-")
		if err != nil {
			t.Fatalf("merge !%d: %v", iid, err)
		}
		next = strings.TrimSpace(string(out))
		mr.mergeSHA = next
	}
	if _, err := p.repo.git(nil, nil, "update-ref", "refs/heads/"+mr.target, next, dst); err != nil {
		t.Fatalf("merge !%d: %v", iid, err)
	}
	mr.state, mr.sha, mr.updated = "merged", src, time.Now()
}
