// Package docs holds the tests that keep the repository's prose honest:
// Go comments may only point at files and folders that exist.
package docs

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoPath matches a path into the repository as comments write it
// (`pkg/bus/names.go`, services/collector/, docs/sinks/*.md).
var repoPath = regexp.MustCompile("(?:^|[\\s(`'\"])((?:api|cmd|pkg|services|deploy|charts|loadtest|docs)/[A-Za-z0-9_./*{}<>-]+)")

// goSymbol is a package path followed by one of its identifiers (pkg/app.Main).
var goSymbol = regexp.MustCompile(`^(.+)\.[A-Za-z_][A-Za-z0-9_]*$`)

// stalePaths returns, for one comment line, the repository paths it names
// that do not exist under root.
func stalePaths(root, line string) []string {
	var out []string
	for _, m := range repoPath.FindAllStringSubmatch(line, -1) {
		p := strings.TrimRight(m[1], ".,:;)")
		if strings.ContainsAny(p, "<>{}") {
			continue // a pattern (services/<family>exporter), not a path
		}
		if exists(root, p) {
			continue
		}
		if s := goSymbol.FindStringSubmatch(p); s != nil && exists(root, s[1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func exists(root, p string) bool {
	matches, err := filepath.Glob(filepath.Join(root, p))
	return err == nil && len(matches) > 0
}

// Comments that point at a file or folder that was moved or never existed
// mislead the next reader (and `kollect init` once wrote one into users'
// files); the design documents outside the repository are not cited.
func TestGoCommentsNameOnlyPathsThatExist(t *testing.T) {
	root := ".."
	out, err := exec.Command("git", "-C", root, "ls-files", "*.go").Output()
	if err != nil {
		t.Fatal(err)
	}
	files := strings.Fields(string(out))
	if len(files) < 100 {
		t.Fatalf("git ls-files found %d Go files", len(files))
	}
	for _, f := range files {
		fh, err := os.Open(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			_, comment, ok := strings.Cut(sc.Text(), "//")
			if !ok {
				continue
			}
			if strings.Contains(comment, "CONTRACT.md") {
				t.Errorf("%s:%d cites CONTRACT.md, a design document outside the repository: cite docs/contract.md", f, n)
			}
			for _, p := range stalePaths(root, comment) {
				t.Errorf("%s:%d names %s, which does not exist", f, n, p)
			}
		}
		fh.Close()
	}
}

func TestStalePathsFindsWhatIsMissingOnly(t *testing.T) {
	for line, want := range map[string]string{
		"see loadtest/faults.go":                 "loadtest/faults.go",
		"(services/cli/devcmd.go).":              "services/cli/devcmd.go",
		"docs/api.md lists every field":          "docs/api.md",
		"see docs/contract.md.":                  "",
		"built by pkg/app.Main":                  "",
		"services/<family>exporter/secretref.go": "",
		"the suite is loadtest/fault_*.go":       "",
		"https://example.com/pkg/x":              "",
	} {
		got := strings.Join(stalePaths("..", line), ",")
		if got != want {
			t.Errorf("stalePaths(%q) = %q, want %q", line, got, want)
		}
	}
}
