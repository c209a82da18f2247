package app_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-logr/logr"

	"kollect.dev/kollect/pkg/app"
)

// mainConfig is a service configuration whose Validate refuses a negative
// --workers.
type mainConfig struct{ workers int }

func (c *mainConfig) BindFlags(fs *flag.FlagSet) { fs.IntVar(&c.workers, "workers", 1, "Workers.") }

func (c *mainConfig) Validate() error {
	if c.workers < 0 {
		return fmt.Errorf("--workers %d: must not be negative", c.workers)
	}
	return nil
}

// mainChildEnv makes this test binary run mainChild (TestMain, in
// memory_test.go), so that the tests below see Main exit a process.
const mainChildEnv = "KOLLECT_APP_MAIN_CHILD"

func mainChild() {
	var c mainConfig
	app.Main("child", &c, func(context.Context, logr.Logger) error {
		fmt.Println("run started")
		return nil
	})
	os.Exit(0)
}

func runMain(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...) //nolint:gosec // G702: re-runs this test binary
	cmd.Env = append(os.Environ(), mainChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

func TestMainRefusesAConfigThatDoesNotValidateBeforeRunning(t *testing.T) {
	out, code := runMain(t, "--workers=-1")
	if code != 2 || !strings.Contains(out, "child: --workers -1: must not be negative") || strings.Contains(out, "run started") {
		t.Fatalf("Main with --workers=-1: exit %d, output:\n%s\nwant exit 2 naming the flag, run not started", code, out)
	}
	out, code = runMain(t, "--workers=3")
	if code != 0 || !strings.Contains(out, "run started") {
		t.Fatalf("Main with --workers=3: exit %d, output:\n%s\nwant run started and exit 0", code, out)
	}
}
