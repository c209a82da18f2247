package testenv

import (
	"encoding/json"
	"net/http"
	"strings"
)

// glCommit is one commit read from a repository.
type glCommit struct {
	ID, AuthorName, AuthorEmail, AuthoredDate    string
	CommitterName, CommitterEmail, CommittedDate string
	Parents                                      []string
	Message                                      string
}

// commitInfo reads one commit.
func (r glRepo) commitInfo(oid string) (glCommit, error) {
	out, err := r.git(nil, nil, "show", "-s", "--format=%H%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%P%x00%B", oid)
	if err != nil {
		return glCommit{}, err
	}
	f := strings.SplitN(string(out), "\x00", 9)
	for len(f) < 9 {
		f = append(f, "")
	}
	return glCommit{ID: f[0], AuthorName: f[1], AuthorEmail: f[2], AuthoredDate: f[3], CommitterName: f[4],
		CommitterEmail: f[5], CommittedDate: f[6], Parents: strings.Fields(f[7]),
		Message: strings.TrimSuffix(f[8], "\n")}, nil
}

// title is the first line of the message.
func (c glCommit) title() string {
	t, _, _ := strings.Cut(c.Message, "\n")
	return t
}

func (g *GitLab) commitJSON(p *glProject, c glCommit) map[string]any {
	parents := c.Parents
	if parents == nil {
		parents = []string{}
	}
	return map[string]any{
		"id": c.ID, "short_id": c.ID[:min(8, len(c.ID))], "title": c.title(), "message": c.Message,
		"author_name": c.AuthorName, "author_email": c.AuthorEmail, "authored_date": c.AuthoredDate,
		"committer_name": c.CommitterName, "committer_email": c.CommitterEmail, "committed_date": c.CommittedDate,
		"created_at": c.CommittedDate, "parent_ids": parents,
		"web_url": g.URL + "/" + p.path + "/-/commit/" + c.ID,
	}
}

// commitRequest is the body of POST .../repository/commits.
type commitRequest struct {
	Branch        string         `json:"branch"`
	CommitMessage string         `json:"commit_message"`
	StartBranch   string         `json:"start_branch"`
	Actions       []gitLabAction `json:"actions"`
	AuthorEmail   string         `json:"author_email"`
	AuthorName    string         `json:"author_name"`
}

// createCommit serves POST .../repository/commits: all actions in one
// commit, or none.
func (g *GitLab) createCommit(w http.ResponseWriter, r *glRequest, p *glProject) {
	var req commitRequest
	if err := json.Unmarshal(r.body, &req); err != nil {
		writeGitLabError(w, http.StatusBadRequest, "the body must be JSON")
		return
	}
	switch {
	case req.Branch == "":
		writeGitLabError(w, http.StatusBadRequest, "branch is missing")
		return
	case req.CommitMessage == "":
		writeGitLabError(w, http.StatusBadRequest, "commit_message is missing")
		return
	case len(req.Actions) == 0:
		writeGitLabError(w, http.StatusBadRequest, "actions is missing")
		return
	}
	parent, old, err := g.commitParent(p, req)
	if err != nil {
		writeErr(w, err)
		return
	}
	author := gitLabAuthor{or(req.AuthorName, gitLabUserName), or(req.AuthorEmail, gitLabUserEmail)}
	oid, err := p.repo.commit(req.Branch, parent, old, req.CommitMessage, author, req.Actions)
	if err != nil {
		writeErr(w, err)
		return
	}
	c, err := p.repo.commitInfo(oid)
	if err != nil {
		writeErr(w, err)
		return
	}
	writeGitLabJSON(w, http.StatusCreated, g.commitJSON(p, c))
}

// commitParent returns the commit a new commit builds on and the branch's
// current commit (empty when the commit creates the branch), answering
// GitLab's errors for a missing or conflicting branch.
func (g *GitLab) commitParent(p *glProject, req commitRequest) (parent, old string, err error) {
	head, exists, err := p.repo.head(req.Branch)
	if err != nil {
		return "", "", err
	}
	if exists {
		if req.StartBranch != "" && req.StartBranch != req.Branch {
			return "", "", &errGitLab{http.StatusBadRequest, "A branch called '" + req.Branch +
				"' already exists. Switch to that branch in order to make changes"}
		}
		return head, head, nil
	}
	if req.StartBranch == "" {
		branches, err := p.repo.branches()
		if err != nil {
			return "", "", err
		}
		if len(branches) == 0 {
			return "", "", nil // an empty repository gets its first branch
		}
		return "", "", &errGitLab{http.StatusBadRequest, "You can only create or edit files when you are on a branch"}
	}
	start, ok, err := p.repo.head(req.StartBranch)
	if err != nil {
		return "", "", err
	}
	if !ok {
		return "", "", &errGitLab{http.StatusBadRequest, "Invalid start branch name"}
	}
	return start, "", nil
}
