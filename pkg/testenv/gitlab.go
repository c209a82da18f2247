package testenv

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// GitLabOptions configures a fake GitLab server.
type GitLabOptions struct {
	// Token is the only access token accepted, as the PRIVATE-TOKEN header
	// or "Authorization: Bearer <Token>". Empty accepts every request.
	Token string
	// BeforeCommit, when set, runs before the server applies a commit
	// request, outside the server's lock: a test can change the branch
	// there, as another writer would, to provoke a conflict.
	BeforeCommit func(project, branch string)
}

// GitLab is the one accepted fake peer (TEST-PEERS.md): an httptest server
// implementing only the GitLab REST v4 endpoints Kollect's GitLab sink
// calls, each project backed by a real bare Git repository manipulated with
// the git command line. What it implements behaves like GitLab: paths are
// URL-encoded, a commit's actions apply atomically, create on an existing
// file and update or delete of a missing one answer 400, a second open
// merge request from one source branch to one target answers 409, a wrong
// token answers 401 and an unknown project 404.
//
// Implemented: GET /projects/:id; GET and DELETE
// /projects/:id/repository/branches/:branch; POST
// /projects/:id/repository/branches; GET
// /projects/:id/repository/files/:path/raw; GET
// /projects/:id/repository/tree (path, ref, recursive, page, per_page);
// POST /projects/:id/repository/commits; GET and POST
// /projects/:id/merge_requests; GET and PUT
// /projects/:id/merge_requests/:iid. Parameters are read from the query
// string and from a JSON body.
type GitLab struct {
	// URL is the server's base URL; the API is at URL/api/v4.
	URL string
	// Root holds one bare repository per project, at <path>.git.
	Root string

	opts   GitLabOptions
	server *httptest.Server

	mu       sync.Mutex
	projects map[string]*glProject
	byID     map[int]*glProject
	nextID   int
	nextMR   int
	failures []gitlabFailure
	requests []string
}

// glProject is one project of the fake.
type glProject struct {
	id            int
	path          string
	defaultBranch string
	repo          glRepo
	mrs           []*glMR
}

// glMR is one merge request of the fake.
type glMR struct {
	id, iid        int
	title, state   string
	source, target string
	sha, mergeSHA  string
	created        time.Time
	updated        time.Time
}

// The user every token belongs to; it commits what others author.
const (
	gitLabUserName  = "Kollect Bot"
	gitLabUserEmail = "bot@gitlab.example"
)

// StartGitLab starts a fake GitLab server; the test's cleanup stops it.
func StartGitLab(t testing.TB, opts GitLabOptions) *GitLab {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git not found (install the Debian package git, as .ci/run does): %v", err)
	}
	g := &GitLab{Root: filepath.Join(t.TempDir(), "gitlab"), opts: opts,
		projects: map[string]*glProject{}, byID: map[int]*glProject{}}
	if err := os.MkdirAll(g.Root, 0o755); err != nil {
		t.Fatalf("make GitLab folder: %v", err)
	}
	g.server = httptest.NewServer(http.HandlerFunc(g.serveHTTP))
	g.URL = g.server.URL
	t.Cleanup(g.server.Close)
	return g
}

// CreateProject creates the project at path (group/project), initialised
// with a README.md commit on its default branch main, and returns its
// numeric ID.
func (g *GitLab) CreateProject(t testing.TB, path string) int {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.projects[path] != nil {
		t.Fatalf("GitLab project %s already exists", path)
	}
	dir := filepath.Join(g.Root, filepath.FromSlash(path)+".git")
	if out, err := gitCommand("", "init", "--quiet", "--bare", "--initial-branch=main", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init %s: %v\n%s", path, err, out)
	}
	p := &glProject{id: g.nextID + 1, path: path, defaultBranch: "main", repo: glRepo{dir: dir}}
	readme := []gitLabAction{{Action: "create", FilePath: "README.md", Content: "# " + path + "\n"}}
	if _, err := p.repo.commit("main", "", "", "Initial commit", gitLabAuthor{gitLabUserName, gitLabUserEmail}, readme); err != nil {
		t.Fatalf("initialise GitLab project %s: %v", path, err)
	}
	g.nextID++
	g.projects[path], g.byID[p.id] = p, p
	return p.id
}

// FailNext makes the next n API requests answer status (a 5xx or 429) with
// a GitLab error body, before authentication.
func (g *GitLab) FailNext(status, n int) { g.FailNextRetryAfter(status, n, "") }

// FailNextRetryAfter is FailNext with a Retry-After header on the answers,
// as GitLab's rate limiter sends (seconds or an HTTP date).
func (g *GitLab) FailNextRetryAfter(status, n int, retryAfter string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for range n {
		g.failures = append(g.failures, gitlabFailure{status: status, retryAfter: retryAfter})
	}
}

// gitlabFailure is one answer queued by FailNext.
type gitlabFailure struct {
	status     int
	retryAfter string
}

// serveHTTP authenticates and routes one API request.
func (g *GitLab) serveHTTP(w http.ResponseWriter, r *http.Request) {
	g.record(r)
	if f, failed := g.nextFailure(); failed {
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		writeGitLabError(w, f.status, fmt.Sprintf("%d %s", f.status, http.StatusText(f.status)))
		return
	}
	if !g.authorized(r) {
		writeGitLabError(w, http.StatusUnauthorized, "401 Unauthorized")
		return
	}
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/api/v4/projects/")
	if !ok {
		writeGitLabError(w, http.StatusNotFound, "404 Not Found")
		return
	}
	segs, err := splitEscaped(rest)
	if err != nil || len(segs) == 0 {
		writeGitLabError(w, http.StatusNotFound, "404 Not Found")
		return
	}
	g.route(w, r, segs[0], segs[1:])
}

// record logs r for Requests.
func (g *GitLab) record(r *http.Request) {
	path, err := url.PathUnescape(r.URL.EscapedPath())
	if err != nil {
		path = r.URL.EscapedPath()
	}
	if r.URL.RawQuery != "" {
		path += "?" + r.URL.RawQuery
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests = append(g.requests, r.Method+" "+path)
}

// Requests returns the requests served so far, oldest first, as "METHOD
// path?query" with the path unescaped, and forgets them.
func (g *GitLab) Requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.requests
	g.requests = nil
	return out
}

// nextFailure pops a failure queued by FailNext.
func (g *GitLab) nextFailure() (gitlabFailure, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.failures) == 0 {
		return gitlabFailure{}, false
	}
	f := g.failures[0]
	g.failures = g.failures[1:]
	return f, true
}

func (g *GitLab) authorized(r *http.Request) bool {
	if g.opts.Token == "" {
		return true
	}
	tok := r.Header.Get("PRIVATE-TOKEN")
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		tok = bearer
	}
	return subtle.ConstantTimeCompare([]byte(tok), []byte(g.opts.Token)) == 1
}

// project finds a project by numeric ID or full path; callers hold g.mu.
func (g *GitLab) project(id string) *glProject {
	if p := g.projects[id]; p != nil {
		return p
	}
	var n int
	if _, err := fmt.Sscanf(id, "%d", &n); err == nil && fmt.Sprint(n) == id {
		return g.byID[n]
	}
	return nil
}

// mustProject returns the project at path or fails the test.
func (g *GitLab) mustProject(t testing.TB, path string) *glProject {
	t.Helper()
	p := g.project(path)
	if p == nil {
		t.Fatalf("no GitLab project %s", path)
	}
	return p
}
