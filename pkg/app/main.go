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

// Config is a service's configuration as Main takes it: BindFlags registers
// its flags. A Config that also has Validate() error is validated after the
// command line is parsed, before anything starts.
type Config interface {
	BindFlags(fs *flag.FlagSet)
}

// Validate returns c.Validate() when c has that method, nil otherwise.
func Validate(c Config) error {
	if v, ok := c.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// Main is the body of every service's main: it registers c's flags plus
// the logging (LogOptions) and Process flags, parses the command line,
// validates c, builds the logger, starts the Process settings (memory
// limit, pprof) and calls run with a context cancelled on SIGINT or
// SIGTERM. It exits with status 2 on bad flags or a configuration that
// does not validate, and 1 when the process fails to start or run fails.
func Main(name string, c Config, run func(ctx context.Context, log logr.Logger) error) {
	fs, lo, proc := NewFlagSet(name, c.BindFlags)
	_ = fs.Parse(os.Args[1:]) // flag.ExitOnError
	if err := Validate(c); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(2)
	}
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
