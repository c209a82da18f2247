package gitlab

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// project is the part of GitLab's project answer the sink reads.
type project struct {
	ID                int    `json:"id"`
	PathWithNamespace string `json:"path_with_namespace"`
	DefaultBranch     string `json:"default_branch"`
	EmptyRepo         bool   `json:"empty_repo"`
}

// getProject reads the project (GET /projects/:id).
func (c *client) getProject(ctx context.Context) (project, error) {
	var p project
	_, err := c.do(ctx, request{method: http.MethodGet, path: c.projectPath("")}, &p)
	return p, err
}

// branch is the part of GitLab's branch answer the sink reads.
type branch struct {
	Name   string `json:"name"`
	Commit struct {
		ID string `json:"id"`
	} `json:"commit"`
}

// getBranch reads a branch; found is false when it does not exist.
func (c *client) getBranch(ctx context.Context, name string) (b branch, found bool, err error) {
	_, err = c.do(ctx, request{method: http.MethodGet, path: c.projectPath("/repository/branches/" + escape(name))}, &b)
	if statusOf(err) == http.StatusNotFound {
		return branch{}, false, nil
	}
	return b, err == nil, err
}

// rawFile reads a file's bytes at ref; found is false when there is no
// such file.
func (c *client) rawFile(ctx context.Context, path, ref string) (data []byte, found bool, err error) {
	_, err = c.do(ctx, request{method: http.MethodGet, path: c.projectPath("/repository/files/" + escape(path) + "/raw"),
		query: url.Values{"ref": {ref}}}, &data)
	if statusOf(err) == http.StatusNotFound {
		return nil, false, nil
	}
	return data, err == nil, err
}

// treeEntry is one entry of a repository tree listing.
type treeEntry struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Path string `json:"path"`
}

// listTree lists the folder dir ("" the root) at ref, all pages; a missing
// folder lists nothing.
func (c *client) listTree(ctx context.Context, dir, ref string, recursive bool) ([]treeEntry, error) {
	q := url.Values{"ref": {ref}}
	if dir != "" {
		q.Set("path", dir)
	}
	if recursive {
		q.Set("recursive", "true")
	}
	var entries []treeEntry
	err := pages(ctx, c, request{method: http.MethodGet, path: c.projectPath("/repository/tree"), query: q}, &entries)
	if statusOf(err) == http.StatusNotFound {
		return nil, nil
	}
	return entries, err
}

// action is one file change of a commit.
type action struct {
	Action   string `json:"action"`
	FilePath string `json:"file_path"`
	Content  string `json:"content"` // sent even when empty: GitLab needs it for create and update
	Encoding string `json:"encoding,omitempty"`
}

// commitRequest is the body of POST .../repository/commits.
type commitRequest struct {
	Branch        string   `json:"branch"`
	StartBranch   string   `json:"start_branch,omitempty"`
	CommitMessage string   `json:"commit_message"`
	AuthorName    string   `json:"author_name"`
	AuthorEmail   string   `json:"author_email"`
	Actions       []action `json:"actions"`
}

// commitResult is the part of the created commit the sink reads.
type commitResult struct {
	ID        string   `json:"id"`
	ParentIDs []string `json:"parent_ids"`
}

// createCommit applies actions as one commit.
func (c *client) createCommit(ctx context.Context, req commitRequest) (commitResult, error) {
	var out commitResult
	_, err := c.do(ctx, request{method: http.MethodPost, path: c.projectPath("/repository/commits"), body: req}, &out)
	return out, err
}

// mergeRequest is the part of GitLab's merge request answer the sink reads.
type mergeRequest struct {
	IID          int    `json:"iid"`
	Title        string `json:"title"`
	State        string `json:"state"`
	SourceBranch string `json:"source_branch"`
	TargetBranch string `json:"target_branch"`
	SHA          string `json:"sha"`
}

// listMergeRequests lists the merge requests from source to target in
// state (opened, merged, closed or all), all pages.
func (c *client) listMergeRequests(ctx context.Context, state, source, target string) ([]mergeRequest, error) {
	q := url.Values{"state": {state}, "source_branch": {source}, "target_branch": {target}}
	var out []mergeRequest
	err := pages(ctx, c, request{method: http.MethodGet, path: c.projectPath("/merge_requests"), query: q}, &out)
	return out, err
}

// createMergeRequest opens a merge request.
func (c *client) createMergeRequest(ctx context.Context, source, target, title string) error {
	body := map[string]any{"source_branch": source, "target_branch": target, "title": title, "remove_source_branch": true}
	_, err := c.do(ctx, request{method: http.MethodPost, path: c.projectPath("/merge_requests"), body: body}, nil)
	return err
}

// setMergeRequestTitle changes the title of merge request iid.
func (c *client) setMergeRequestTitle(ctx context.Context, iid int, title string) error {
	_, err := c.do(ctx, request{method: http.MethodPut, path: c.projectPath("/merge_requests/" + strconv.Itoa(iid)),
		body: map[string]any{"title": title}}, nil)
	return err
}
