package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

var toolsDir = sync.OnceValues(func() (string, error) {
	if d := os.Getenv("KOLLECT_TOOLS_DIR"); d != "" {
		return d, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	out, err := exec.Command("bash", filepath.Join(root, "deploy/tools/build.sh"), "dir").Output()
	if err != nil {
		return "", fmt.Errorf("locate tools folder: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
})

// ToolsDir returns the folder `make tools` builds into: $KOLLECT_TOOLS_DIR when
// set, else the per-user cache folder named by deploy/tools/build.sh.
func ToolsDir() (string, error) { return toolsDir() }

// Tool returns the path of a built tool such as "envtest/kube-apiserver" or
// "bin/versitygw", or an error telling the reader to run `make tools`.
func Tool(rel string) (string, error) {
	dir, err := ToolsDir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, rel)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("test tool %s is missing (run `make tools`): %w", p, err)
	}
	return p, nil
}

var repoRoot = sync.OnceValues(func() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module kollect.dev/kollect\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (go.mod of kollect.dev/kollect) not found above the working directory")
		}
		dir = parent
	}
})

// RepoRoot returns the folder holding Kollect's go.mod, found from the working
// directory upwards (go test runs in the package folder).
func RepoRoot() (string, error) { return repoRoot() }
