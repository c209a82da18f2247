package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDevRunsKollectDevWithItsArguments puts a stand-in kollect-dev on PATH:
// `kollect dev` passes every argument on untouched (--help included) and
// exits with its status.
func TestDevRunsKollectDevWithItsArguments(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"args: $*\"\necho warn >&2\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, DevBinary), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"dev", "--install-crds", "--context", "kind-a", "--help"}, Streams{Out: &out, Err: &errOut})
	if code != 3 {
		t.Errorf("exit %d, want kollect-dev's 3 (stderr %q)", code, errOut.String())
	}
	if got, want := out.String(), "args: --install-crds --context kind-a --help\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if errOut.String() != "warn\n" {
		t.Errorf("stderr %q, want kollect-dev's own", errOut.String())
	}
}

// TestDevNamesTheMissingBinary runs `kollect dev` with no kollect-dev
// anywhere: exit 2 with a message saying what to build.
func TestDevNamesTheMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var errOut bytes.Buffer
	code := Main(context.Background(), []string{"dev", "--install-crds"}, Streams{Out: &bytes.Buffer{}, Err: &errOut})
	if code != 2 || !strings.Contains(errOut.String(), "kollect-dev is not next to this binary nor on PATH") ||
		!strings.Contains(errOut.String(), "go build -o kollect-dev ./cmd/kollect-dev") {
		t.Fatalf("exit %d, stderr %q: want 2 naming kollect-dev and how to build it", code, errOut.String())
	}
}

// TestEverydayCLILinksNoServiceOrSDK keeps the kollect binary small: the
// services, the embedded NATS server and the sink SDKs live in kollect-dev
// (docs/cli.md states both sizes).
func TestEverydayCLILinksNoServiceOrSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "kollect.dev/kollect/services/cli/cmd").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list -deps printed only %d packages; the check would prove nothing", len(deps))
	}
	forbidden := []string{"kollect.dev/kollect/services/control", "kollect.dev/kollect/services/collector",
		"kollect.dev/kollect/services/aggregator", "kollect.dev/kollect/services/snapshotexporter",
		"kollect.dev/kollect/services/databaseexporter", "kollect.dev/kollect/services/eventexporter",
		"kollect.dev/kollect/services/cli/dev", "github.com/nats-io/nats-server",
		// go-git and pgx stay: `kollect verify` reads a Git history and a
		// PostgreSQL table with them (about 7 MB of the binary).
		"cloud.google.com/go", "github.com/aws/aws-sdk-go-v2", "go.mongodb.org/mongo-driver",
		"github.com/twmb/franz-go", "sigs.k8s.io/kustomize", "github.com/segmentio/kafka-go", "google.golang.org/api",
		"github.com/Azure/azure-sdk-for-go"}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("kollect links %s", dep)
			}
		}
	}
}
