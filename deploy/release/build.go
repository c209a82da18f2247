package release

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// VersionPackage is the package whose Version and Commit the build stamps.
const VersionPackage = "kollect.dev/kollect/pkg/version"

// Source is a commit's tree extracted to a temporary folder.
type Source struct {
	// Dir holds the extracted tree; the caller removes it.
	Dir string
	// Commit is the full commit hash.
	Commit string
	// Remote is the origin URL (empty when the repository has none).
	Remote string
	// Time is the commit's time: the images' created date and file times.
	Time time.Time
}

// describe reads rev's commit hash and time and the origin URL.
func describe(ctx context.Context, repo, rev string) (*Source, error) {
	commit, err := git(ctx, repo, "rev-parse", "--verify", rev+"^{commit}")
	if err != nil {
		return nil, err
	}
	remote, _ := git(ctx, repo, "config", "--get", "remote.origin.url") // none is fine
	unix, err := git(ctx, repo, "show", "-s", "--format=%ct", commit)
	if err != nil {
		return nil, err
	}
	secs, err := strconv.ParseInt(unix, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("read the time of %s: %w", commit, err)
	}
	return &Source{Commit: commit, Remote: remote, Time: time.Unix(secs, 0).UTC()}, nil
}

// checkout extracts rev's tree from the repository at repo with `git archive`.
func checkout(ctx context.Context, repo, rev string) (*Source, error) {
	src, err := describe(ctx, repo, rev)
	if err != nil {
		return nil, err
	}
	commit := src.Commit
	dir, err := os.MkdirTemp("", "kollect-release-src-")
	if err != nil {
		return nil, fmt.Errorf("create source folder: %w", err)
	}
	archive := exec.CommandContext(ctx, "git", "-C", repo, "archive", "--format=tar", commit) //nolint:gosec // G204: commit is a verified hash
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", dir)                                 //nolint:gosec // G204: dir is our temporary folder
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", commit, err)
	}
	untar.Stdin = pipe
	var stderr bytes.Buffer
	archive.Stderr, untar.Stderr = &stderr, &stderr
	if err := untar.Start(); err != nil {
		return nil, fmt.Errorf("extract %s: %w", commit, err)
	}
	if err := archive.Run(); err != nil {
		return nil, fmt.Errorf("archive %s: %w: %s", commit, err, stderr.String())
	}
	if err := untar.Wait(); err != nil {
		return nil, fmt.Errorf("extract %s: %w: %s", commit, err, stderr.String())
	}
	src.Dir = dir
	return src, nil
}

// git runs git in repo and returns its trimmed standard output.
func git(ctx context.Context, repo string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...) //nolint:gosec // G204: fixed git subcommands
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// Binary is one command to release.
type Binary struct {
	// Name is the released file's prefix: kollect for the CLI, kollect-<service> otherwise.
	Name string
	// Package is the main package, relative (./cmd/<name>).
	Package string
}

// DevBinary and VerifyBinary are the programs `kollect dev` and `kollect
// verify` run (cmd/kollect-dev, cmd/kollect-verify): a release ships them
// beside kollect, no image holds them.
const (
	DevBinary    = "kollect-dev"
	VerifyBinary = "kollect-verify"
)

// discover lists every cmd/*/main.go under dir (kollect, its plugins and
// the services' kollect-<service>, each named after its folder), keeping
// only names in only when it is not empty.
func discover(dir string, only []string) ([]Binary, error) {
	commands, err := filepath.Glob(filepath.Join(dir, "cmd", "*", "main.go"))
	if err != nil {
		return nil, fmt.Errorf("find commands: %w", err)
	}
	var all []Binary
	for _, m := range commands {
		name := filepath.Base(filepath.Dir(m))
		all = append(all, Binary{Name: name, Package: "./cmd/" + name})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	want := map[string]bool{}
	for _, n := range only {
		want[n] = true
	}
	var bins []Binary
	for _, b := range all {
		if len(only) == 0 || want[b.Name] {
			bins = append(bins, b)
			delete(want, b.Name)
		}
	}
	for n := range want {
		return nil, fmt.Errorf("find binary %q: no cmd/* builds it", n)
	}
	if len(bins) == 0 {
		return nil, fmt.Errorf("find commands: none under %s/cmd", dir)
	}
	return bins, nil
}

// BuildSpec is one reproducible go build.
type BuildSpec struct {
	Dir, Package    string
	Platform        Platform
	Version, Commit string
	Out             string
}

// BuildFlags are the go build flags of a release build (without -o and the package).
func BuildFlags(version, commit string) []string {
	return []string{"-trimpath", "-buildvcs=false", "-mod=readonly",
		"-ldflags=-s -w -buildid= -X " + VersionPackage + ".Version=" + version +
			" -X " + VersionPackage + ".Commit=" + commit}
}

// BuildEnv is the environment a release build adds to the process's: static, no cgo,
// the target platform, and no GOFLAGS from the caller.
func BuildEnv(p Platform) []string {
	return []string{"CGO_ENABLED=0", "GOOS=" + p.OS, "GOARCH=" + p.Arch, "GOFLAGS=", "GOEXPERIMENT=",
		"GOAMD64=v1", "GOARM64=v8.0"}
}

// Build runs one static, trimmed, reproducible go build.
func Build(ctx context.Context, s BuildSpec) error {
	args := append([]string{"build"}, BuildFlags(s.Version, s.Commit)...)
	args = append(args, "-o", s.Out, s.Package)
	cmd := exec.CommandContext(ctx, "go", args...) //nolint:gosec // G204: go build with the release flags
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), BuildEnv(s.Platform)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s for %s: %w: %s", s.Package, s.Platform, err, out)
	}
	return nil
}
