package app

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/go-logr/logr"

	"kollect.dev/kollect/pkg/version"
)

// Main is the body of every service's main: it registers the service's
// flags with bind plus the logging (LogOptions) and Process flags, parses
// the command line, builds the logger, starts the Process settings (memory
// limit, pprof) and calls run with a context cancelled on SIGINT or
// SIGTERM. It exits with status 2 on bad flags and 1 when the process
// fails to start or run fails.
func Main(name string, bind func(*flag.FlagSet), run func(ctx context.Context, log logr.Logger) error) {
	fs, lo, proc := NewFlagSet(name, bind)
	_ = fs.Parse(os.Args[1:]) // flag.ExitOnError
	log, sync, err := lo.Logger(name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	warnDeprecated(fs, log)
	log.Info("starting", "version", version.Version, "commit", version.Commit, "go", runtime.Version())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if _, err = proc.Start(ctx, log); err == nil {
		err = run(ctx, log)
	}
	stop()
	if err != nil {
		log.Error(err, "stopped")
		sync()
		os.Exit(1)
	}
	sync()
}

// NewFlagSet returns the flag set Main parses for service name: bind's
// flags, then LogOptions' and Process's, bound to the returned values.
// Tests use it to see exactly the flags a binary has.
func NewFlagSet(name string, bind func(*flag.FlagSet)) (*flag.FlagSet, *LogOptions, *Process) {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	bind(fs)
	lo, proc := DefaultLogOptions(), DefaultProcess()
	lo.BindFlags(fs)
	proc.BindFlags(fs)
	return fs, &lo, &proc
}
