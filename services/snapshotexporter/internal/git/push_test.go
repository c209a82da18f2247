package git

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// foreignCommit commits a file to the bare repository repo of p directly,
// as another writer would.
func foreignCommit(t testing.TB, p *peer, repo, file string) {
	t.Helper()
	dir := t.TempDir()
	bare := filepath.Join(p.g.Root, repo+".git")
	git := func(args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=someone", "GIT_AUTHOR_EMAIL=someone@example.com",
			"GIT_COMMITTER_NAME=someone", "GIT_COMMITTER_EMAIL=someone@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	run := func(args ...string) {
		if err := git(args...); err != nil {
			t.Fatal(err)
		}
	}
	run("clone", "--quiet", bare, ".")
	if git("checkout", "--quiet", "main") != nil {
		run("symbolic-ref", "HEAD", "refs/heads/main") // an empty repository
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte("by someone else\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", file)
	run("commit", "--quiet", "-m", "someone else: "+file)
	run("push", "--quiet", "origin", "main")
}

// racer commits in the remote just before the sink's first push.
type racer struct {
	rt   http.RoundTripper
	once sync.Once
	race func()
}

func (r *racer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/git-receive-pack") ||
		strings.Contains(req.URL.RawQuery, "service=git-receive-pack") {
		r.once.Do(r.race)
	}
	return r.rt.RoundTrip(req)
}

func TestPushPolicies(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	tests := []struct {
		name        string
		policy      string
		wantSubject []string
		wantFiles   []string
	}{
		{"Commit rebases over a commit pushed while it exported", "Commit",
			[]string{"chore(conformance/team-a/web): export 1 items @ ", "someone else: theirs.txt", "chore(conformance/team-a/web): export 1 items @ "},
			[]string{".kollect/conformance/team-a/web.json", "inventory/team-a/web.yaml", "theirs.txt"}},
		{"ForcePush replaces the branch with its own history", "ForcePush",
			[]string{"chore(conformance/team-a/web): export 1 items @ ", "chore(conformance/team-a/web): export 1 items @ "},
			[]string{".kollect/conformance/team-a/web.json", "inventory/team-a/web.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, url := p.newRepo(t)
			spec := p.spec(url)
			spec.Git = &v1alpha1.GitSink{PushPolicy: tt.policy}
			s := newSink(t, &Backend{Egress: allowLoopback}, spec, p.creds)
			write(t, s, snap(t, "team-a", 1, pod("team-a", "a", 1)))
			s.http = &racer{rt: s.http, race: func() { foreignCommit(t, p, name, "theirs.txt") }}
			write(t, s, snap(t, "team-a", 2, pod("team-a", "a", 2)))
			var subjects []string
			for _, c := range p.commits(t, name) {
				subjects = append(subjects, strings.TrimRight(c, "0123456789abcdef"))
			}
			if d := cmp.Diff(tt.wantSubject, subjects); d != "" {
				t.Errorf("commits (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantFiles, lsTree(t, p, name)); d != "" {
				t.Errorf("files (-want +got):\n%s", d)
			}
			if got := p.g.Show(t, name, "main", "inventory/team-a/web.yaml"); !strings.Contains(got, "v: 2") {
				t.Errorf("the branch does not hold revision 2:\n%s", got)
			}
		})
	}
}

func TestBranches(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	tests := []struct {
		name     string
		branch   string
		setup    func(t *testing.T, repo string)
		wantHead string
	}{
		{"an empty remote gets main", "", nil, "main"},
		{"an empty remote gets the configured branch", "exports/inventory", nil, "exports/inventory"},
		{"a remote's default branch is followed", "", func(t *testing.T, repo string) {
			foreignCommit(t, p, repo, "README")
			p.g.Run(t, repo, "branch", "-m", "main", "trunk")
			p.g.Run(t, repo, "symbolic-ref", "HEAD", "refs/heads/trunk")
		}, "trunk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, url := p.newRepo(t)
			if tt.setup != nil {
				tt.setup(t, name)
			}
			spec := p.spec(url)
			if tt.branch != "" {
				spec.Git = &v1alpha1.GitSink{Branch: tt.branch}
			}
			s := newSink(t, &Backend{Egress: allowLoopback}, spec, p.creds)
			write(t, s, snap(t, "team-a", 1, pod("team-a", "a", 1)))
			got := lines(p.g.Run(t, name, "for-each-ref", "--format=%(refname:short)", "refs/heads"))
			var files []string
			if len(got) > 0 {
				files = lines(p.g.Run(t, name, "ls-tree", "-r", "--name-only", tt.wantHead))
			}
			sort.Strings(files)
			if !contains(got, tt.wantHead) || !contains(files, "inventory/team-a/web.yaml") {
				t.Fatalf("branches %v with files %v on %s, want the export on %s", got, files, tt.wantHead, tt.wantHead)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
