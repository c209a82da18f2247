package testenv

import (
	"crypto/subtle"
	"encoding/pem"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/cgi" //nolint:gosec // G504: serves git http-backend to tests; Go since 1.6.3 drops the httpoxy Proxy header
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// GitOptions configures a Git server. With neither Username nor Token set,
// every request is accepted.
type GitOptions struct {
	// TLS serves HTTPS with a self-signed certificate; Git.CAPEM trusts it.
	TLS bool
	// Username and Password, when Username is set, are accepted as HTTP
	// basic auth.
	Username, Password string
	// Token, when set, is accepted as "Authorization: Bearer <Token>" and, as
	// GitHub and GitLab do, as the basic-auth password with any username.
	Token string
	// CPULog, when set, runs each git http-backend under sh, which appends
	// its own CPU time and that of http-backend and the processes it waited
	// for (upload-pack, receive-pack, index-pack) to this file, two lines
	// per request (sh's times; not in a pipe, whose subshell would report
	// nothing): the Git server's own CPU, apart from its host process's
	// other children (GitCPUSeconds sums it).
	CPULog string
}

// Git serves bare repositories over Git's smart HTTP protocol: Debian git's
// `git http-backend` behind net/http/cgi, in process, on a free loopback
// port. Clones and pushes work; wrong credentials get 401.
type Git struct {
	// URL is the base URL; a repository is served at URL/<name>.git.
	URL string
	// Root holds the bare repositories (GIT_PROJECT_ROOT).
	Root string
	// CAPEM is the PEM certificate a client must trust when TLS is on.
	CAPEM []byte
	// LogFile collects git http-backend's stderr and server errors.
	LogFile string

	server   *httptest.Server
	log      *os.File
	ownDir   bool
	stopOnce sync.Once
	stopErr  error
}

// StartGit starts a Git server on a temporary folder; the test's cleanup
// stops it.
func StartGit(t testing.TB, opts GitOptions) *Git {
	t.Helper()
	g, err := NewGit(t.TempDir(), opts)
	if err != nil {
		t.Fatalf("start Git server: %v", err)
	}
	stopOnCleanup(t, "git http-backend", g.Stop, func() string { return logTail("git http-backend", g.LogFile) })
	return g
}

// NewGit starts a Git server keeping repositories in dir (a new temporary
// folder that Stop removes when dir is empty); the caller owns Stop.
func NewGit(dir string, opts GitOptions) (*Git, error) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("git not found (install the Debian package git, as .ci/run does): %w", err)
	}
	dir, owned, err := peerDir(dir, "kollect-git-")
	if err != nil {
		return nil, fmt.Errorf("make Git folder: %w", err)
	}
	g := &Git{Root: filepath.Join(dir, "repos"), LogFile: filepath.Join(dir, "git-http.log"), ownDir: owned}
	err = os.MkdirAll(g.Root, 0o755)
	if err == nil {
		g.log, err = os.Create(g.LogFile)
	}
	if err != nil {
		if owned {
			_ = os.RemoveAll(dir)
		}
		return nil, fmt.Errorf("prepare Git folder: %w", err)
	}
	backend := &cgi.Handler{
		Path: gitPath,
		Args: []string{"http-backend"},
		Env: append(gitEnv(),
			"KOLLECT_GIT="+gitPath, "KOLLECT_GIT_CPU_LOG="+opts.CPULog,
			"GIT_PROJECT_ROOT="+g.Root,
			"GIT_HTTP_EXPORT_ALL=1",
			"REMOTE_USER=kollect-test", // http-backend refuses pushes from anonymous users
		),
		Logger: log.New(g.log, "cgi: ", log.LstdFlags),
		Stderr: g.log,
	}
	if opts.CPULog != "" {
		backend.Path = "/bin/sh"
		backend.Args = []string{"-c", `"$KOLLECT_GIT" http-backend; s=$?; times >>"$KOLLECT_GIT_CPU_LOG"; exit $s`}
	}
	g.server = httptest.NewUnstartedServer(authenticate(opts, backend))
	g.server.Config.ErrorLog = log.New(g.log, "http: ", log.LstdFlags)
	if opts.TLS {
		g.server.StartTLS()
		g.CAPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: g.server.Certificate().Raw})
	} else {
		g.server.Start()
	}
	g.URL = g.server.URL
	return g, nil
}

// Stop closes the server and removes the folder when NewGit made it. Later
// calls do nothing.
func (g *Git) Stop() error {
	g.stopOnce.Do(func() {
		g.server.Close()
		g.stopErr = g.log.Close()
		if g.ownDir {
			g.stopErr = errors.Join(g.stopErr, os.RemoveAll(filepath.Dir(g.Root)))
		}
	})
	return g.stopErr
}

// CreateRepo makes an empty bare repository whose default branch is main,
// open to pushes, and returns its URL. name may contain slashes ("team/inv").
func (g *Git) CreateRepo(t testing.TB, name string) string {
	t.Helper()
	name = strings.TrimSuffix(name, ".git") + ".git"
	dir := filepath.Join(g.Root, filepath.FromSlash(name))
	if out, err := gitCommand("", "init", "--quiet", "--bare", "--initial-branch=main", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init %s: %v\n%s", name, err, out)
	}
	g.Run(t, name, "config", "http.receivepack", "true")
	return g.URL + "/" + name
}

// Run runs a git command in the bare repository repo and returns its
// standard output, failing the test on error.
func (g *Git) Run(t testing.TB, repo string, args ...string) string {
	t.Helper()
	cmd := gitCommand(g.repoDir(repo), args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), repo, err, stderr.String())
	}
	return string(out)
}

// Log returns the subjects of the commits on the default branch of repo,
// newest first; nil when the repository has no commits.
func (g *Git) Log(t testing.TB, repo string) []string {
	t.Helper()
	if err := gitCommand(g.repoDir(repo), "rev-parse", "--verify", "--quiet", "HEAD").Run(); err != nil {
		return nil
	}
	return strings.Split(strings.TrimSuffix(g.Run(t, repo, "log", "--format=%s", "HEAD"), "\n"), "\n")
}

// Show returns the content of path at revision rev (a branch, tag or commit)
// of repo.
func (g *Git) Show(t testing.TB, repo, rev, path string) string {
	t.Helper()
	return g.Run(t, repo, "show", rev+":"+path)
}

func (g *Git) repoDir(repo string) string {
	return filepath.Join(g.Root, filepath.FromSlash(strings.TrimSuffix(repo, ".git")+".git"))
}

// gitCommand runs git in dir, ignoring the machine's and user's git config.
func gitCommand(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...) //nolint:gosec,nolintlint // G702, reported by some runs of the taint analysis only: a test peer whose arguments the tests build
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv()...)
	return cmd
}

func gitEnv() []string {
	return []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
}

// authenticate wraps next with the credential checks of opts.
func authenticate(opts GitOptions, next http.Handler) http.Handler {
	if opts.Username == "" && opts.Token == "" {
		return next
	}
	eq := func(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, basic := r.BasicAuth()
		bearer, isBearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		switch {
		case basic && opts.Username != "" && eq(user, opts.Username) && eq(pass, opts.Password),
			basic && opts.Token != "" && eq(pass, opts.Token),
			isBearer && opts.Token != "" && eq(bearer, opts.Token):
			next.ServeHTTP(w, r)
		default:
			w.Header().Set("WWW-Authenticate", `Basic realm="kollect-test"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
		}
	})
}
