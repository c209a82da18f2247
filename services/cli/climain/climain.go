package climain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// ExitError carries a command's exit status and, unless nil, the error
// printed before exiting.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Run executes cmd with args and returns the exit status: 0 on success,
// an ExitError's Code, and 2 (a usage or setup error) for any other error.
// Errors are printed to errOut after prog and a colon.
func Run(ctx context.Context, cmd *cobra.Command, args []string, errOut io.Writer, prog string) int {
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	if ee, ok := errors.AsType[*ExitError](err); ok {
		if ee.Err != nil {
			fmt.Fprintln(errOut, prog+":", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintln(errOut, prog+":", err)
	return 2
}

// Main is a binary's main: it calls run with the command line arguments,
// standard output and standard error under a context cancelled on SIGINT
// or SIGTERM, and exits with the status run returns.
func Main(run func(ctx context.Context, args []string, out, errOut io.Writer) int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
