package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
)

// DevBinary is the program `kollect dev` runs: every service and sink SDK
// in one process, kept out of this everyday CLI so that it stays small.
const DevBinary = "kollect-dev"

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
			return runDevBinary(cmd.Context(), s, args)
		},
	}
}

// runDevBinary runs kollect-dev with args on this process's streams. An
// interrupt reaches it from the terminal (same process group) or, when ctx
// ends, as os.Interrupt; it gets 30 seconds to stop.
func runDevBinary(ctx context.Context, s Streams, args []string) error {
	path, err := findDevBinary()
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	cmd := exec.CommandContext(ctx, path, args...) //nolint:gosec // G204: kollect-dev, found beside this binary or on PATH, with the user's own arguments
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
			return &ExitError{Code: code}
		case ctx.Err() != nil:
			return nil //nolint:nilerr // ended by the interrupt it was sent: a clean stop
		}
	}
	return &ExitError{Code: 1, Err: fmt.Errorf("dev: run %s: %w", path, err)}
}

// findDevBinary returns kollect-dev next to this executable, else on PATH.
func findDevBinary() (string, error) {
	name := DevBinary
	if filepath.Ext(os.Args[0]) == ".exe" {
		name += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(DevBinary); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("dev: %s is not next to this binary nor on PATH; build it with "+
		"`go build -o %s ./cmd/kollect-dev` (or make build) and put it beside kollect", DevBinary, DevBinary)
}
