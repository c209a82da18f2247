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
	code := Main(context.Background(), []string{"dev", "--install-crds", "--context", "kind-a", "-v", "1", "--help"}, Streams{Out: &out, Err: &errOut})
	if code != 3 {
		t.Errorf("exit %d, want kollect-dev's 3 (stderr %q)", code, errOut.String())
	}
	if got, want := out.String(), "args: --install-crds --context kind-a -v 1 --help\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if errOut.String() != "warn\n" {
		t.Errorf("stderr %q, want kollect-dev's own", errOut.String())
	}
}

// TestDevNamesTheMissingBinary runs `kollect dev` with no kollect-dev
// anywhere: exit 2 with a message saying what to build.
func TestVerifyRunsKollectVerifyWithItsArguments(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"args: $*\"\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, VerifyBinary), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"verify", "git", "./repo", "--path", "a.json"}, Streams{Out: &out, Err: &errOut})
	if code != 1 || out.String() != "args: git ./repo --path a.json\n" {
		t.Errorf("exit %d, stdout %q: want kollect-verify's 1 and its arguments untouched", code, out.String())
	}
	t.Setenv("PATH", t.TempDir())
	errOut.Reset()
	code = Main(context.Background(), []string{"verify", "--help"}, Streams{Out: &out, Err: &errOut})
	if code != 2 || !strings.Contains(errOut.String(), "verify: kollect-verify is not next to this binary nor on PATH") ||
		!strings.Contains(errOut.String(), "go build -o kollect-verify ./cmd/kollect-verify") {
		t.Fatalf("exit %d, stderr %q: want 2 naming kollect-verify and how to build it", code, errOut.String())
	}
}

func TestDevNamesTheMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var errOut bytes.Buffer
	code := Main(context.Background(), []string{"dev", "--install-crds"}, Streams{Out: &bytes.Buffer{}, Err: &errOut})
	if code != 2 || !strings.Contains(errOut.String(), "kollect-dev is not next to this binary nor on PATH") ||
		!strings.Contains(errOut.String(), "go build -o kollect-dev ./cmd/kollect-dev") {
		t.Fatalf("exit %d, stderr %q: want 2 naming kollect-dev and how to build it", code, errOut.String())
	}
}

// TestEverydayCLILinksNoServiceOrSDK keeps the kollect binary small, since
// its resident set grows with it: the services, the embedded NATS server and
// the sink SDKs live in kollect-dev, the sinks' clients `verify` reads with
// in kollect-verify, and client-go's discovery (which links every built-in
// API group's types) is replaced by internal/restmap (docs/cli.md states
// the sizes).
func TestEverydayCLILinksNoServiceOrSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "kollect.dev/kollect/cmd/kollect").CombinedOutput()
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
		"kollect.dev/kollect/services/cli/verify", "kollect.dev/kollect/services/cli/internal/verify",
		"github.com/go-git/go-git", "github.com/jackc/pgx", "k8s.io/client-go/discovery", "k8s.io/client-go/kubernetes",
		"k8s.io/client-go/restmapper", "sigs.k8s.io/controller-runtime",
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
