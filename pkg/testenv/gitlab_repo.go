package testenv

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// glRepo is the bare repository behind one fake GitLab project, read and
// written with git plumbing commands (no worktree).
type glRepo struct {
	dir string
}

// zeroOID is the object id update-ref reads as "must not exist".
const zeroOID = "0000000000000000000000000000000000000000"

// errGitLab is an error the fake answers with a GitLab status and message.
type errGitLab struct {
	status  int
	message string
}

func (e *errGitLab) Error() string { return fmt.Sprintf("%d %s", e.status, e.message) }

// git runs git in the repository with stdin and extra environment, returning
// standard output.
func (r glRepo) git(stdin []byte, env []string, args ...string) ([]byte, error) {
	cmd := gitCommand(r.dir, args...)
	cmd.Env = append(cmd.Env, env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// head returns the commit a branch points at; ok is false when the branch
// does not exist.
func (r glRepo) head(branch string) (oid string, ok bool, err error) {
	out, err := r.git(nil, nil, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch+"^{commit}")
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return strings.TrimSpace(string(out)), true, nil
}

// resolve returns the commit ref names (a branch or a commit id).
func (r glRepo) resolve(ref string) (string, bool, error) {
	if oid, ok, err := r.head(ref); ok || err != nil {
		return oid, ok, err
	}
	out, err := r.git(nil, nil, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return "", false, nil //nolint:nilerr // an unknown ref is "not found"
	}
	return strings.TrimSpace(string(out)), true, nil
}

// branches lists the branch names.
func (r glRepo) branches() ([]string, error) {
	out, err := r.git(nil, nil, "for-each-ref", "--format=%(refname:lstrip=2)", "refs/heads")
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// blob returns the content of path at commit; ok is false when there is no
// such file.
func (r glRepo) blob(commit, file string) ([]byte, bool, error) {
	out, err := r.git(nil, nil, "ls-tree", "-z", commit, "--", file)
	if err != nil {
		return nil, false, err
	}
	entries := parseLsTree(out)
	if len(entries) != 1 || entries[0].Type != "blob" || entries[0].Path != file {
		return nil, false, nil
	}
	data, err := r.git(nil, nil, "cat-file", "blob", entries[0].ID)
	return data, err == nil, err
}

// gitLabTreeEntry is one entry of GitLab's repository tree listing.
type gitLabTreeEntry struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Path string `json:"path"`
	Mode string `json:"mode"`
}

// tree lists dir (the root when empty) at commit, recursively or not;
// ok is false when dir is not a folder there.
func (r glRepo) tree(commit, dir string, recursive bool) ([]gitLabTreeEntry, bool, error) {
	args := []string{"ls-tree", "-z"}
	if recursive {
		args = append(args, "-r", "-t")
	}
	args = append(args, commit)
	if dir != "" {
		if out, err := r.git(nil, nil, "cat-file", "-t", commit+":"+dir); err != nil || strings.TrimSpace(string(out)) != "tree" {
			return nil, false, nil //nolint:nilerr // not a folder
		}
		args = append(args, "--", dir+"/")
	}
	out, err := r.git(nil, nil, args...)
	if err != nil {
		return nil, false, err
	}
	entries := parseLsTree(out)
	if dir != "" { // ls-tree -t also names the folder and its parents
		entries = slices.DeleteFunc(entries, func(e gitLabTreeEntry) bool { return !strings.HasPrefix(e.Path, dir+"/") })
	}
	return entries, true, nil
}

// parseLsTree parses `git ls-tree -z` output.
func parseLsTree(out []byte) []gitLabTreeEntry {
	var entries []gitLabTreeEntry
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 3 {
			continue
		}
		entries = append(entries, gitLabTreeEntry{ID: f[2], Name: path.Base(p), Type: f[1], Path: p, Mode: f[0]})
	}
	return entries
}

// gitLabAction is one action of a commit request.
type gitLabAction struct {
	Action   string `json:"action"`
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
}

// gitLabAuthor names who authors a commit.
type gitLabAuthor struct{ Name, Email string }

// commit applies actions on top of parent (empty: an empty tree) and points
// branch at the new commit, if branch still is at old (empty: must not
// exist). A create of an existing file or an update or delete of a missing
// one fails with 400, and nothing is written.
func (r glRepo) commit(branch, parent, old, message string, author gitLabAuthor, actions []gitLabAction) (string, error) {
	tmp, err := os.MkdirTemp("", "kollect-gitlab-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}
	if parent != "" {
		if _, err := r.git(nil, env, "read-tree", parent); err != nil {
			return "", err
		}
	}
	info, err := r.indexInfo(env, tmp, actions)
	if err != nil {
		return "", err
	}
	if _, err := r.git(info, env, "update-index", "-z", "--index-info"); err != nil {
		return "", &errGitLab{400, "could not apply the actions: " + err.Error()}
	}
	tree, err := r.git(nil, env, "write-tree")
	if err != nil {
		return "", &errGitLab{400, "could not write the tree: " + err.Error()}
	}
	args := []string{"commit-tree", strings.TrimSpace(string(tree)), "-F", "-"}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	cenv := []string{"GIT_AUTHOR_NAME=" + author.Name, "GIT_AUTHOR_EMAIL=" + author.Email,
		"GIT_COMMITTER_NAME=" + gitLabUserName, "GIT_COMMITTER_EMAIL=" + gitLabUserEmail}
	out, err := r.git([]byte(message), cenv, args...)
	if err != nil {
		return "", err
	}
	oid := strings.TrimSpace(string(out))
	if _, err := r.git(nil, nil, "update-ref", "refs/heads/"+branch, oid, or(old, zeroOID)); err != nil {
		return "", &errGitLab{400, "the branch moved while committing"}
	}
	return oid, nil
}

// indexInfo validates actions against the files of the index (the
// parent's) and returns the `update-index --index-info` input applying them
// in order; content blobs are written to the object store.
func (r glRepo) indexInfo(env []string, tmp string, actions []gitLabAction) ([]byte, error) {
	out, err := r.git(nil, env, "ls-files", "-z")
	if err != nil {
		return nil, err
	}
	exists := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		exists[p] = p != ""
	}
	var blobFiles []string
	for i, a := range actions {
		if err := checkAction(i, a, exists); err != nil {
			return nil, err
		}
		exists[a.FilePath] = a.Action != "delete"
		if a.Action == "delete" {
			continue
		}
		data, err := decodeContent(a)
		if err != nil {
			return nil, err
		}
		f := filepath.Join(tmp, fmt.Sprintf("blob-%d", i))
		if err := os.WriteFile(f, data, 0o600); err != nil {
			return nil, err
		}
		blobFiles = append(blobFiles, f)
	}
	var oids []string
	if len(blobFiles) > 0 {
		out, err := r.git([]byte(strings.Join(blobFiles, "\n")+"\n"), nil, "hash-object", "-w", "--stdin-paths")
		if err != nil {
			return nil, err
		}
		oids = strings.Fields(string(out))
	}
	var info bytes.Buffer
	for _, a := range actions {
		if a.Action == "delete" {
			fmt.Fprintf(&info, "0 %s\t%s\x00", zeroOID, a.FilePath)
			continue
		}
		fmt.Fprintf(&info, "100644 %s\t%s\x00", oids[0], a.FilePath)
		oids = oids[1:]
	}
	return info.Bytes(), nil
}

// checkAction answers 400 as GitLab does for an action that does not apply
// to the files that exist at that point of the commit.
func checkAction(i int, a gitLabAction, exists map[string]bool) error {
	switch {
	case a.FilePath == "":
		return &errGitLab{400, fmt.Sprintf("actions[%d][file_path] is missing", i)}
	case a.Action == "create" && exists[a.FilePath]:
		return &errGitLab{400, "A file with this name already exists"}
	case (a.Action == "update" || a.Action == "delete") && !exists[a.FilePath]:
		return &errGitLab{400, "A file with this name doesn't exist"}
	case a.Action != "create" && a.Action != "update" && a.Action != "delete":
		return &errGitLab{400, fmt.Sprintf("actions[%d][action] does not have a valid value", i)}
	}
	return nil
}

// decodeContent returns an action's content, decoding base64.
func decodeContent(a gitLabAction) ([]byte, error) {
	switch a.Encoding {
	case "", "text":
		return []byte(a.Content), nil
	case "base64":
		data, err := base64.StdEncoding.DecodeString(a.Content)
		if err != nil {
			return nil, &errGitLab{400, "content is not valid base64"}
		}
		return data, nil
	default:
		return nil, &errGitLab{400, "encoding does not have a valid value"}
	}
}

// or returns a, or b when a is empty.
func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
