package testenv

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// glRequest is one API request with its parameters, from the query string
// and a JSON body.
type glRequest struct {
	*http.Request
	body []byte
	json map[string]any
}

// param returns a parameter as a string ("" when absent).
func (r *glRequest) param(name string) string {
	if v := r.URL.Query().Get(name); v != "" {
		return v
	}
	switch v := r.json[name].(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return ""
}

// route serves one request on project id; rest are the unescaped path
// segments after it.
func (g *GitLab) route(w http.ResponseWriter, hr *http.Request, id string, rest []string) {
	r := &glRequest{Request: hr}
	body, err := io.ReadAll(io.LimitReader(hr.Body, 256<<20))
	if err != nil {
		writeGitLabError(w, http.StatusBadRequest, "unreadable body")
		return
	}
	r.body = body
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &r.json); err != nil {
			writeGitLabError(w, http.StatusBadRequest, "body is not a JSON object")
			return
		}
	}
	path := strings.Join(rest, "/")
	if hr.Method == http.MethodPost && path == "repository/commits" && g.opts.BeforeCommit != nil {
		g.opts.BeforeCommit(id, r.param("branch"))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.project(id)
	if p == nil {
		writeGitLabError(w, http.StatusNotFound, "404 Project Not Found")
		return
	}
	method := hr.Method
	switch {
	case path == "" && method == http.MethodGet:
		writeGitLabJSON(w, http.StatusOK, g.projectJSON(p))
	case path == "repository/branches" && method == http.MethodPost:
		g.createBranch(w, r, p)
	case len(rest) == 3 && rest[0] == "repository" && rest[1] == "branches":
		g.branch(w, r, p, rest[2])
	case len(rest) == 4 && rest[0] == "repository" && rest[1] == "files" && rest[3] == "raw" && method == http.MethodGet:
		g.rawFile(w, r, p, rest[2])
	case path == "repository/tree" && method == http.MethodGet:
		g.listTree(w, r, p)
	case path == "repository/commits" && method == http.MethodPost:
		g.createCommit(w, r, p)
	case path == "merge_requests" && (method == http.MethodGet || method == http.MethodPost):
		g.mergeRequests(w, r, p)
	case len(rest) == 2 && rest[0] == "merge_requests" && (method == http.MethodGet || method == http.MethodPut):
		g.mergeRequest(w, r, p, rest[1])
	default:
		writeGitLabError(w, http.StatusNotFound, "404 Not Found")
	}
}

func (g *GitLab) projectJSON(p *glProject) map[string]any {
	name := p.path[strings.LastIndex(p.path, "/")+1:]
	return map[string]any{
		"id": p.id, "name": name, "path": name, "path_with_namespace": p.path,
		"name_with_namespace": strings.ReplaceAll(p.path, "/", " / "), "default_branch": p.defaultBranch,
		"web_url": g.URL + "/" + p.path, "http_url_to_repo": g.URL + "/" + p.path + ".git",
		"empty_repo": false, "archived": false, "visibility": "private",
	}
}

// branch serves GET and DELETE of one branch.
func (g *GitLab) branch(w http.ResponseWriter, r *glRequest, p *glProject, name string) {
	oid, ok, err := p.repo.head(name)
	switch {
	case err != nil:
		writeGitLabError(w, http.StatusInternalServerError, err.Error())
	case !ok:
		writeGitLabError(w, http.StatusNotFound, "404 Branch Not Found")
	case r.Method == http.MethodDelete:
		if _, err := p.repo.git(nil, nil, "update-ref", "-d", "refs/heads/"+name, oid); err != nil {
			writeGitLabError(w, http.StatusInternalServerError, err.Error())
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodGet:
		g.writeBranch(w, http.StatusOK, p, name, oid)
	default:
		writeGitLabError(w, http.StatusNotFound, "404 Not Found")
	}
}

func (g *GitLab) writeBranch(w http.ResponseWriter, status int, p *glProject, name, oid string) {
	c, err := p.repo.commitInfo(oid)
	if err != nil {
		writeGitLabError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeGitLabJSON(w, status, map[string]any{
		"name": name, "commit": g.commitJSON(p, c), "merged": false, "protected": false,
		"default": name == p.defaultBranch, "developers_can_push": true, "developers_can_merge": true,
		"can_push": true, "web_url": g.URL + "/" + p.path + "/-/tree/" + name,
	})
}

// createBranch serves POST .../repository/branches (branch, ref).
func (g *GitLab) createBranch(w http.ResponseWriter, r *glRequest, p *glProject) {
	name, ref := r.param("branch"), r.param("ref")
	switch {
	case name == "":
		writeGitLabError(w, http.StatusBadRequest, "branch is missing")
		return
	case ref == "":
		writeGitLabError(w, http.StatusBadRequest, "ref is missing")
		return
	}
	if _, ok, _ := p.repo.head(name); ok {
		writeGitLabError(w, http.StatusBadRequest, "Branch already exists")
		return
	}
	oid, ok, err := p.repo.resolve(ref)
	if err != nil || !ok {
		writeGitLabError(w, http.StatusBadRequest, "Invalid reference name: "+ref)
		return
	}
	if _, err := p.repo.git(nil, nil, "update-ref", "refs/heads/"+name, oid, zeroOID); err != nil {
		writeGitLabError(w, http.StatusBadRequest, "Branch name is invalid")
		return
	}
	g.writeBranch(w, http.StatusCreated, p, name, oid)
}

// rawFile serves GET .../repository/files/:path/raw?ref=.
func (g *GitLab) rawFile(w http.ResponseWriter, r *glRequest, p *glProject, file string) {
	commit, ok, err := p.repo.resolve(or(r.param("ref"), p.defaultBranch))
	if err == nil && ok {
		var data []byte
		data, ok, err = p.repo.blob(commit, file)
		if err == nil && ok {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Gitlab-File-Path", file)
			_, _ = w.Write(data)
			return
		}
	}
	if err != nil {
		writeGitLabError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeGitLabError(w, http.StatusNotFound, "404 File Not Found")
}

// listTree serves GET .../repository/tree with GitLab's pagination headers.
func (g *GitLab) listTree(w http.ResponseWriter, r *glRequest, p *glProject) {
	commit, ok, err := p.repo.resolve(or(r.param("ref"), p.defaultBranch))
	if err != nil || !ok {
		writeGitLabError(w, http.StatusNotFound, "404 Tree Not Found")
		return
	}
	entries, ok, err := p.repo.tree(commit, strings.Trim(r.param("path"), "/"), r.param("recursive") == "true")
	if err != nil {
		writeGitLabError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if !ok {
		writeGitLabError(w, http.StatusNotFound, "404 Tree Not Found")
		return
	}
	writeGitLabJSON(w, http.StatusOK, paginate(w, r, entries))
}

// paginate returns the page of items r asks for (page, per_page: default
// 20, at most 100) and sets X-Page, X-Per-Page, X-Total, X-Total-Pages,
// X-Next-Page and X-Prev-Page.
func paginate[T any](w http.ResponseWriter, r *glRequest, items []T) []T {
	page, _ := strconv.Atoi(r.param("page"))
	per, _ := strconv.Atoi(r.param("per_page"))
	page = max(page, 1)
	if per <= 0 {
		per = 20
	}
	per = min(per, 100)
	pages := max((len(items)+per-1)/per, 1)
	h := w.Header()
	h.Set("X-Page", strconv.Itoa(page))
	h.Set("X-Per-Page", strconv.Itoa(per))
	h.Set("X-Total", strconv.Itoa(len(items)))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
	h.Set("X-Next-Page", "")
	h.Set("X-Prev-Page", "")
	if page < pages {
		h.Set("X-Next-Page", strconv.Itoa(page+1))
	}
	if page > 1 {
		h.Set("X-Prev-Page", strconv.Itoa(page-1))
	}
	lo := min((page-1)*per, len(items))
	out := items[lo:min(lo+per, len(items))]
	if out == nil {
		out = []T{}
	}
	return out
}

// splitEscaped splits an escaped URL path into unescaped segments, so that
// %2F inside a segment (a project path, a file path) stays in it.
func splitEscaped(p string) ([]string, error) {
	var segs []string
	for _, s := range strings.Split(strings.Trim(p, "/"), "/") {
		u, err := url.PathUnescape(s)
		if err != nil {
			return nil, err
		}
		segs = append(segs, u)
	}
	return segs, nil
}

// writeGitLabJSON writes v as a JSON response.
func writeGitLabJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeGitLabError writes GitLab's error body {"message": ...}.
func writeGitLabError(w http.ResponseWriter, status int, message any) {
	writeGitLabJSON(w, status, map[string]any{"message": message})
}

// writeErr answers err, as its GitLab status when it carries one.
func writeErr(w http.ResponseWriter, err error) {
	var ge *errGitLab
	if errors.As(err, &ge) {
		writeGitLabError(w, ge.status, ge.message)
		return
	}
	writeGitLabError(w, http.StatusInternalServerError, err.Error())
}

// timeJSON formats t as GitLab does.
func timeJSON(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
