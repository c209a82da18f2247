package testenv_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"kollect.dev/kollect/pkg/testenv"
)

func TestGitPushCloneAndCredentials(t *testing.T) {
	for _, tc := range []struct {
		name string
		tls  bool
	}{
		{name: "over plain HTTP", tls: false},
		{name: "over HTTPS with a custom CA", tls: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := timed(t, "git server", func() *testenv.Git {
				return testenv.StartGit(t, testenv.GitOptions{TLS: tc.tls, Username: "alice", Password: "s3cret"})
			})
			if tc.tls != strings.HasPrefix(srv.URL, "https://") {
				t.Fatalf("URL %s does not match TLS=%v", srv.URL, tc.tls)
			}
			url := srv.CreateRepo(t, "team/inventory")
			if got := srv.Log(t, "team/inventory"); got != nil {
				t.Fatalf("new repository has commits: %q", got)
			}
			auth := &githttp.BasicAuth{Username: "alice", Password: "s3cret"}

			local := initRepo(t, url)
			commitFile(t, local, "inventory/pods.json", `{"pods":1}`, "first export")
			push(t, local, auth, srv.CAPEM)
			if got := srv.Show(t, "team/inventory", "main", "inventory/pods.json"); got != `{"pods":1}` {
				t.Fatalf("pushed file = %q", got)
			}

			clone, err := git.PlainClone(t.TempDir(), false, &git.CloneOptions{URL: url, Auth: auth, CABundle: srv.CAPEM})
			if err != nil {
				t.Fatalf("clone: %v", err)
			}
			commitFile(t, clone, "inventory/pods.json", `{"pods":2}`, "second export")
			push(t, clone, auth, srv.CAPEM)
			if got, want := srv.Log(t, "team/inventory"), []string{"second export", "first export"}; !slices.Equal(got, want) {
				t.Fatalf("log = %q, want %q", got, want)
			}

			_, err = git.PlainClone(t.TempDir(), false, &git.CloneOptions{
				URL: url, Auth: &githttp.BasicAuth{Username: "alice", Password: "wrong"}, CABundle: srv.CAPEM,
			})
			if !errors.Is(err, transport.ErrAuthenticationRequired) {
				t.Fatalf("clone with a wrong password: err = %v, want %v", err, transport.ErrAuthenticationRequired)
			}
			if tc.tls {
				_, err = git.PlainClone(t.TempDir(), false, &git.CloneOptions{URL: url, Auth: auth})
				if err == nil || !strings.Contains(err.Error(), "certificate") {
					t.Fatalf("clone without trusting the CA: err = %v, want a certificate error", err)
				}
			}

			if err := srv.Stop(); err != nil {
				t.Fatalf("stop: %v", err)
			}
			requireClosed(t, strings.TrimPrefix(strings.TrimPrefix(srv.URL, "http://"), "https://"))
		})
	}
}

func TestGitTokenAuth(t *testing.T) {
	srv := testenv.StartGit(t, testenv.GitOptions{Token: "tok-123"})
	url := srv.CreateRepo(t, "tokens")
	for _, tc := range []struct {
		name string
		auth transport.AuthMethod
		ok   bool
	}{
		{name: "bearer token is accepted", auth: &githttp.TokenAuth{Token: "tok-123"}, ok: true},
		{name: "token as basic-auth password is accepted", auth: &githttp.BasicAuth{Username: "x-access-token", Password: "tok-123"}, ok: true},
		{name: "wrong bearer token is refused", auth: &githttp.TokenAuth{Token: "tok-999"}},
		{name: "no credentials are refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// An empty repository answers a successful ls-remote with
			// ErrEmptyRemoteRepository: past authentication.
			_, err := git.PlainClone(t.TempDir(), false, &git.CloneOptions{URL: url, Auth: tc.auth})
			if tc.ok && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
				t.Fatalf("err = %v, want %v", err, transport.ErrEmptyRemoteRepository)
			}
			if !tc.ok && !errors.Is(err, transport.ErrAuthenticationRequired) {
				t.Fatalf("err = %v, want %v", err, transport.ErrAuthenticationRequired)
			}
		})
	}
}

func initRepo(t *testing.T, url string) *git.Repository {
	t.Helper()
	r, err := git.PlainInitWithOptions(t.TempDir(), &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		t.Fatalf("init: %v", err)
	}
	if _, err := r.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{url}}); err != nil {
		t.Fatalf("add remote: %v", err)
	}
	return r
}

func commitFile(t *testing.T, r *git.Repository, path, content, msg string) {
	t.Helper()
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(wt.Filesystem.Root(), path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add(path); err != nil {
		t.Fatalf("add: %v", err)
	}
	sig := &object.Signature{Name: "Kollect", Email: "kollect@example.com", When: time.Now()}
	if _, err := wt.Commit(msg, &git.CommitOptions{Author: sig}); err != nil {
		t.Fatalf("commit: %v", err)
	}
}

func push(t *testing.T, r *git.Repository, auth transport.AuthMethod, ca []byte) {
	t.Helper()
	if err := r.Push(&git.PushOptions{RemoteName: "origin", Auth: auth, CABundle: ca}); err != nil {
		t.Fatalf("push: %v", err)
	}
}
