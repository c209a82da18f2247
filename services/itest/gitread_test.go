package itest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"sigs.k8s.io/yaml"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/tree"
)

// gitRepo is one bare repository on the shared Git server.
type gitRepo struct {
	URL string
	dir string
}

// newRepo creates an empty repository named name.
func newRepo(t *testing.T, name string) gitRepo {
	t.Helper()
	g := gitServer(t)
	url := g.CreateRepo(t, name)
	return gitRepo{URL: url, dir: filepath.Join(g.Root, name+".git")}
}

// git runs a git command in the bare repository.
func (r gitRepo) git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// files returns every file at HEAD, path to content; none before the first
// commit.
func (r gitRepo) files() (map[string]string, error) {
	if _, err := r.git("rev-parse", "--verify", "--quiet", "HEAD"); err != nil {
		return map[string]string{}, nil //nolint:nilerr // no HEAD: no commit yet, so no files
	}
	list, err := r.git("ls-tree", "-r", "--name-only", "HEAD")
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for _, p := range strings.Fields(list) {
		if files[p], err = r.git("show", "HEAD:"+p); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// subjects returns the commit subjects, newest first.
func (r gitRepo) subjects() []string {
	out, err := r.git("log", "--format=%s", "HEAD")
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// state reads the tree State of inventory inv of cluster at HEAD.
func (r gitRepo) state(cluster string, inv busv1.NamespacedName) (tree.State, error) {
	data, err := r.git("show", "HEAD:"+tree.StatePath(cluster, inv))
	if err != nil {
		return tree.State{}, err
	}
	st, err := tree.ParseState([]byte(data))
	if err != nil {
		return st, err
	}
	files, err := r.files()
	if err != nil {
		return st, err
	}
	return st.WithShardFiles(cluster, inv, func(p string) ([]byte, bool, error) {
		b, ok := files[p]
		return []byte(b), ok, nil
	})
}

// waitTree waits until the repository's files other than the Kollect state
// parse (as YAML rows, one per file) to exactly want, path to row.
func (r gitRepo) waitTree(t *testing.T, want map[string]busv1.Row, dump string) {
	t.Helper()
	wantN := map[string]busv1.Row{}
	for p, row := range want {
		wantN[p] = norm(t, []busv1.Row{row})[0]
	}
	eventually(t, waitFor, "Git tree of "+r.URL, func() error {
		files, err := r.files()
		if err != nil {
			return err
		}
		got := map[string]busv1.Row{}
		for p, data := range files {
			if strings.HasPrefix(p, ".kollect/") {
				continue
			}
			var row busv1.Row
			if err := yaml.Unmarshal([]byte(data), &row); err != nil {
				return fmt.Errorf("parse %s: %w", p, err)
			}
			got[p] = row
		}
		if d := cmp.Diff(wantN, got, cmpopts.EquateEmpty()); d != "" {
			return fmt.Errorf("files (-want +got):\n%s", d)
		}
		return nil
	}, dump)
}

// waitDocument waits until the YAML document at path holds exactly rows.
func (r gitRepo) waitDocument(t *testing.T, path string, rows []busv1.Row, dump string) {
	t.Helper()
	want := norm(t, rows)
	eventually(t, waitFor, "Git document "+path, func() error {
		data, err := r.git("show", "HEAD:"+path)
		if err != nil {
			return err
		}
		got := []busv1.Row{}
		if err := yaml.Unmarshal([]byte(data), &got); err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
		if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
			return fmt.Errorf("rows (-want +got):\n%s", d)
		}
		return nil
	}, dump)
}

// subject is the contract's commit subject of an export.
func subject(cluster string, inv busv1.NamespacedName, items int, sum string) string {
	return fmt.Sprintf("chore(%s/%s/%s): export %d items @ %s", cluster, inv.Namespace, inv.Name, items, sum[:12])
}
