package testenv_test

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"

	"kollect.dev/kollect/pkg/testenv"
)

// With CPULog, each request's http-backend logs its CPU time, which adds
// up to what git spent on a push of a few megabytes, and a push and a
// clone still work through the sh wrapper.
func TestGitLogsTheCPUOfEachRequest(t *testing.T) {
	log := filepath.Join(t.TempDir(), "git-cpu.log")
	srv := testenv.StartGit(t, testenv.GitOptions{CPULog: log})
	url := srv.CreateRepo(t, "cpu")
	local := initRepo(t, url)
	// Random bytes do not compress: index-pack and the clone's pack take
	// tens of milliseconds of CPU for them.
	big := make([]byte, 8<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	commitFile(t, local, "big.bin", string(big), "big")
	commitFile(t, local, "a.json", `{"a":1}`, "first")
	push(t, local, nil, nil)
	if _, err := git.PlainClone(t.TempDir(), false, &git.CloneOptions{URL: url}); err != nil {
		t.Fatalf("clone: %v", err)
	}
	if got := srv.Show(t, "cpu", "main", "a.json"); got != `{"a":1}` {
		t.Fatalf("pushed file = %q", got)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("no CPU log: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 8 { // a push and a clone are two requests each, two lines a request
		t.Fatalf("CPU log has %d lines, want one per request:\n%s", len(lines), b)
	}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) != 2 || !strings.HasSuffix(f[0], "s") || !strings.Contains(f[0], "m") {
			t.Fatalf("CPU log line %q is not sh's times", l)
		}
	}
	secs, err := testenv.GitCPUSeconds(log)
	if err != nil || secs < 0.02 {
		t.Fatalf("GitCPUSeconds = %v, %v; want the CPU of packing 8 MiB", secs, err)
	}
	if s, err := testenv.GitCPUSeconds(filepath.Join(t.TempDir(), "none")); s != 0 || err != nil {
		t.Fatalf("a missing log: %v, %v", s, err)
	}
}
