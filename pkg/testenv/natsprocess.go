package testenv

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// StartNATSProcess builds nats-server and starts it as a process of its own
// (so that what it stores is not in the test's heap), stopped at the test's
// end; it returns the server's URL.
func StartNATSProcess(t testing.TB) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := BuildNATSServer(ctx, root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewNATSProcess(bin, filepath.Join(t.TempDir(), "nats"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop() })
	return p.URL
}
