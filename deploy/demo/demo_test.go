package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDemoRunsEndToEnd runs the demo once, every service a process: the
// Deployments reach the Git repository and the PostgreSQL table, and the
// image change reaches both.
func TestDemoRunsEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	// A stable folder lets go build skip linking binaries that are up to
	// date, as a second `make demo` does.
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	bin := filepath.Join(cache, "kollect", "demo-bin")
	if err := Run(ctx, &out, Options{BinDir: bin, Once: true, Timeout: 2 * time.Minute}); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	got := out.String()
	t.Log(got)
	for _, want := range []string{
		"demo/team-a/deployment/web.yaml", "demo/team-a/deployment/worker.yaml", "demo/team-a/deployment/cache.yaml",
		"nginx:1.27", "team-a | web | [\"nginx:1.28\", \"envoy:1.30\"] | alice | 2",
		"chore(demo/team-a/workloads): export 3 items @", "the change reached Git in",
		"$ kollect history team-a/workloads", "REVISION   TIME", "ADDED   CHANGED   REMOVED",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if strings.Contains(got, "team-b/deployment/api") {
		t.Error("team-b's Deployment, which the Target does not select, was exported")
	}
}
