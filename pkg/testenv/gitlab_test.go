package testenv_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/pkg/testenv"
)

// glClient calls the fake's API in tests.
type glClient struct {
	t     *testing.T
	base  string
	token string
}

// do sends method to path (relative to /api/v4) with a JSON body and
// returns the status, the body and the headers.
func (c glClient) do(method, path string, body any) (int, string, http.Header) {
	c.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+"/api/v4"+path, r)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("PRIVATE-TOKEN", c.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func (c glClient) want(status int, method, path string, body any) string {
	c.t.Helper()
	got, b, _ := c.do(method, path, body)
	if got != status {
		c.t.Fatalf("%s %s = %d %s, want %d", method, path, got, b, status)
	}
	return b
}

const glProj = "/projects/team%2Finventory"

func startGitLabProject(t *testing.T) (*testenv.GitLab, glClient) {
	srv := testenv.StartGitLab(t, testenv.GitLabOptions{Token: "glpat-good"})
	srv.CreateProject(t, "team/inventory")
	return srv, glClient{t: t, base: srv.URL, token: "glpat-good"}
}

func commitBody(branch string, actions ...map[string]string) map[string]any {
	return map[string]any{"branch": branch, "commit_message": "change\n\nbody", "author_name": "kollect",
		"author_email": "kollect@kollect.dev", "actions": actions}
}

func TestGitLabAuthenticationAndProjects(t *testing.T) {
	srv, c := startGitLabProject(t)
	if got := (glClient{t: t, base: srv.URL, token: "wrong"}).want(401, "GET", glProj, nil); !strings.Contains(got, `"401 Unauthorized"`) {
		t.Fatalf("401 body = %s", got)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/api/v4"+glProj, nil)
	req.Header.Set("Authorization", "Bearer glpat-good")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("bearer token: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("bearer token: status %s, want 200 OK", resp.Status)
	}
	var p struct {
		ID            int    `json:"id"`
		Path          string `json:"path_with_namespace"`
		DefaultBranch string `json:"default_branch"`
	}
	_ = json.Unmarshal([]byte(c.want(200, "GET", "/projects/1", nil)), &p)
	if d := cmp.Diff(struct {
		ID                  int
		Path, DefaultBranch string
	}{1, "team/inventory", "main"}, struct {
		ID                  int
		Path, DefaultBranch string
	}{p.ID, p.Path, p.DefaultBranch}); d != "" {
		t.Fatalf("project (-want +got):\n%s", d)
	}
	c.want(404, "GET", "/projects/team%2Fother", nil)
}

func TestGitLabCommitsAreAtomicAndChecked(t *testing.T) {
	srv, c := startGitLabProject(t)
	c.want(201, "POST", glProj+"/repository/commits", commitBody("main",
		map[string]string{"action": "create", "file_path": "a/x.yaml", "content": "x: 1\n"},
		map[string]string{"action": "create", "file_path": "a/y.yaml", "content": "eTogMgo=", "encoding": "base64"}))
	for _, tc := range []struct {
		name   string
		action map[string]string
	}{
		{"creating an existing file is refused", map[string]string{"action": "create", "file_path": "a/x.yaml", "content": "new"}},
		{"updating a missing file is refused", map[string]string{"action": "update", "file_path": "a/z.yaml", "content": "new"}},
		{"deleting a missing file is refused", map[string]string{"action": "delete", "file_path": "a/z.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.t = t
			// The valid first action must not be applied either.
			c.want(400, "POST", glProj+"/repository/commits", commitBody("main",
				map[string]string{"action": "update", "file_path": "a/y.yaml", "content": "changed"}, tc.action))
		})
	}
	c.t = t
	want := map[string]string{"README.md": "# team/inventory\n", "a/x.yaml": "x: 1\n", "a/y.yaml": "y: 2\n"}
	if d := cmp.Diff(want, srv.Files(t, "team/inventory", "main")); d != "" {
		t.Fatalf("files (-want +got):\n%s", d)
	}
	commits := srv.Commits(t, "team/inventory", "main")
	if d := cmp.Diff(testenv.GitLabCommit{Title: "change", Message: "change\n\nbody", AuthorName: "kollect",
		AuthorEmail: "kollect@kollect.dev"}, commits[0]); d != "" || len(commits) != 2 {
		t.Fatalf("%d commits, newest (-want +got):\n%s", len(commits), d)
	}
	if got := c.want(200, "GET", glProj+"/repository/files/a%2Fx.yaml/raw?ref=main", nil); got != "x: 1\n" {
		t.Fatalf("raw file = %q", got)
	}
	c.want(404, "GET", glProj+"/repository/files/a%2Fmissing.yaml/raw?ref=main", nil)
	c.want(400, "POST", glProj+"/repository/commits", commitBody("feature",
		map[string]string{"action": "create", "file_path": "f", "content": ""}))
	body := commitBody("feature", map[string]string{"action": "delete", "file_path": "a/x.yaml"})
	body["start_branch"] = "main"
	c.want(201, "POST", glProj+"/repository/commits", body)
	if got := srv.Files(t, "team/inventory", "feature"); got["a/x.yaml"] != "" || got["a/y.yaml"] != "y: 2\n" {
		t.Fatalf("feature branch files = %v", got)
	}
}

func TestGitLabTreeBranchesAndPagination(t *testing.T) {
	srv, c := startGitLabProject(t)
	var actions []map[string]string
	for _, n := range []string{"1", "2", "3", "4", "5"} {
		actions = append(actions, map[string]string{"action": "create", "file_path": "d/sub/" + n, "content": n})
	}
	c.want(201, "POST", glProj+"/repository/commits", commitBody("main", actions...))
	var paths []string
	for page, next := "1", []string{"2", "3", ""}; page != ""; next = next[1:] {
		status, body, h := c.do("GET", glProj+"/repository/tree?ref=main&recursive=true&path=d&per_page=2&page="+page, nil)
		var entries []struct{ Path, Type, ID string }
		if err := json.Unmarshal([]byte(body), &entries); err != nil || status != 200 {
			t.Fatalf("tree page %s: %d %s", page, status, body)
		}
		for _, e := range entries {
			paths = append(paths, e.Type+":"+e.Path)
		}
		if h.Get("X-Next-Page") != next[0] {
			t.Fatalf("page %s: X-Next-Page = %q, want %q", page, h.Get("X-Next-Page"), next[0])
		}
		page = h.Get("X-Next-Page")
	}
	want := []string{"tree:d/sub", "blob:d/sub/1", "blob:d/sub/2", "blob:d/sub/3", "blob:d/sub/4", "blob:d/sub/5"}
	if d := cmp.Diff(want, paths); d != "" {
		t.Fatalf("tree (-want +got):\n%s", d)
	}
	c.want(404, "GET", glProj+"/repository/tree?ref=main&path=nothing", nil)
	c.want(200, "GET", glProj+"/repository/branches/main", nil)
	c.want(404, "GET", glProj+"/repository/branches/"+url.PathEscape("kollect/x"), nil)
	c.want(201, "POST", glProj+"/repository/branches?branch=kollect%2Fx&ref=main", nil)
	c.want(400, "POST", glProj+"/repository/branches", map[string]string{"branch": "kollect/x", "ref": "main"})
	c.want(200, "GET", glProj+"/repository/branches/kollect%2Fx", nil)
	if got := srv.Branches(t, "team/inventory"); !cmp.Equal(got, []string{"kollect/x", "main"}) {
		t.Fatalf("branches = %q", got)
	}
}

func TestGitLabMergeRequests(t *testing.T) {
	srv, c := startGitLabProject(t)
	body := commitBody("kollect/inv", map[string]string{"action": "create", "file_path": "f", "content": "1"})
	body["start_branch"] = "main"
	c.want(201, "POST", glProj+"/repository/commits", body)
	mr := map[string]string{"source_branch": "kollect/inv", "target_branch": "main", "title": "Kollect inventory"}
	c.want(201, "POST", glProj+"/merge_requests", mr)
	c.want(409, "POST", glProj+"/merge_requests", mr)
	c.want(200, "PUT", glProj+"/merge_requests/1", map[string]string{"title": "renamed"})
	var open []struct {
		IID   int    `json:"iid"`
		Title string `json:"title"`
		SHA   string `json:"sha"`
	}
	_ = json.Unmarshal([]byte(c.want(200, "GET", glProj+"/merge_requests?state=opened&source_branch=kollect%2Finv", nil)), &open)
	if len(open) != 1 || open[0].Title != "renamed" || open[0].SHA == "" {
		t.Fatalf("open merge requests = %+v", open)
	}
	srv.MergeMergeRequest(t, "team/inventory", 1)
	srv.DeleteBranch(t, "team/inventory", "kollect/inv")
	if got := srv.Files(t, "team/inventory", "main")["f"]; got != "1" {
		t.Fatalf("merged file = %q", got)
	}
	want := []testenv.GitLabMergeRequest{{IID: 1, Title: "renamed", State: "merged", SourceBranch: "kollect/inv", TargetBranch: "main"}}
	if d := cmp.Diff(want, srv.MergeRequests(t, "team/inventory")); d != "" {
		t.Fatalf("merge requests (-want +got):\n%s", d)
	}
	c.want(200, "GET", glProj+"/merge_requests?state=opened", nil)
	c.want(400, "POST", glProj+"/merge_requests", mr) // the source branch is gone
}
