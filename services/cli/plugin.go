package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/spf13/cobra"
)

// DevBinary is the program `kollect dev` runs: every service and sink SDK
// in one process, kept out of this everyday CLI so that it stays small.
const DevBinary = "kollect-dev"

// VerifyBinary is the program `kollect verify` runs: it reads sinks with
// their clients (go-git, pgx, the AWS and Google SDKs), which this everyday
// CLI does not link.
const VerifyBinary = "kollect-verify"

// newDevCommand returns `kollect dev`, which runs kollect-dev with its
// arguments (flags and --help included) and passes its exit status on.
func newDevCommand(s Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "dev [flags]",
		Short: "Run every Kollect service in one process against the current kubeconfig context (runs kollect-dev)",
		Long: `dev runs control, the collector, the aggregator and the exporters in one process against the
current kubeconfig context, by running the kollect-dev binary with the same arguments. kollect-dev links
every service and sink SDK, which the everyday kollect CLI does not; it is looked up next to this
binary first, then on PATH. Its flags: kollect dev --help.`,
		Example: `  kollect dev --install-crds
  kollect dev --allow-in-cluster-sinks --metrics-port 9090`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlugin(cmd.Context(), s, "dev", DevBinary, args)
		},
	}
}

// newVerifyCommand returns `kollect verify`, which runs kollect-verify with
// its arguments and passes its exit status on.
func newVerifyCommand(s Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "verify git|postgres|s3|gcs [flags]",
		Short: "Recompute the checksums of the revisions a sink holds and report the first that does not match (runs kollect-verify)",
		Long: `verify reads every revision of one inventory that a sink keeps (a Git history, a PostgreSQL table and
its history, revisioned S3 or GCS objects), recomputes each checksum and reports the first revision
that does not match, by running the kollect-verify binary with the same arguments. kollect-verify
links the sinks' clients, which the everyday kollect CLI does not; it is looked up next to this
binary first, then on PATH. Exit status 0 when everything verifies, 1 at the first mismatch, 2 on
an error. Its subcommands and flags: kollect verify --help.`,
		Example: `  kollect verify git ./inventory-repo --path inventory/team-a/web.json
  KOLLECT_POSTGRES_DSN=postgres://reader@db/inventory kollect verify postgres \
    --table public.kollect_rows --cluster prod-eu-1 --inventory team-a/web`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlugin(cmd.Context(), s, "verify", VerifyBinary, args)
		},
	}
}

// runPlugin runs the binary name (kollect-dev, kollect-verify) with args on
// this process's streams. An interrupt reaches it from the terminal (same
// process group) or, when ctx ends, as os.Interrupt; it gets 30 seconds to
// stop.
func runPlugin(ctx context.Context, s Streams, command, name string, args []string) error {
	path, err := findPlugin(command, name)
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	cmd := exec.CommandContext(ctx, path, args...) //nolint:gosec // G204: kollect's own plugin, found beside this binary or on PATH, with the user's own arguments
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, s.Out, s.Err
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	err = cmd.Run()
	// After an interrupt, Run reports ctx's error whatever the exit
	// status: the status is what counts.
	if st := cmd.ProcessState; st != nil {
		switch code := st.ExitCode(); {
		case code == 0:
			return nil
		case code > 0:
			return &climain.ExitError{Code: code}
		case ctx.Err() != nil:
			return nil //nolint:nilerr // ended by the interrupt it was sent: a clean stop
		}
	}
	return &climain.ExitError{Code: 1, Err: fmt.Errorf("%s: run %s: %w", command, path, err)}
}

// findPlugin returns the binary name next to this executable, else on PATH.
func findPlugin(command, name string) (string, error) {
	file := name
	if filepath.Ext(os.Args[0]) == ".exe" {
		file += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), file)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s: %s is not next to this binary nor on PATH; build it with "+
		"`go build -o %s ./cmd/%s` (or make build) and put it beside kollect", command, name, name, name)
}
