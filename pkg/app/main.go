package app

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Main is the body of a service's main: it registers the service's flags
// with bind plus the logging and Process flags, parses the command line,
// builds a zap logger, starts the Process settings (memory limit, pprof) and
// calls run with a context cancelled on SIGINT or SIGTERM. It exits with
// status 1 when they fail to start or run fails.
func Main(name string, bind func(*flag.FlagSet), run func(ctx context.Context, log logr.Logger) error) {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	bind(fs)
	proc := DefaultProcess()
	proc.BindFlags(fs)
	dev := fs.Bool("log-development", false, "Human-readable console logs instead of JSON.")
	verbosity := fs.Int("v", 0, "Log verbosity: 0 info, 1 debug.")
	_ = fs.Parse(os.Args[1:])
	cfg := zap.NewProductionConfig()
	if *dev {
		cfg = zap.NewDevelopmentConfig()
	}
	cfg.Level = zap.NewAtomicLevelAt(LogLevel(*verbosity))
	cfg.Sampling = nil
	z, err := cfg.Build()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: build logger: %v\n", name, err)
		os.Exit(1)
	}
	log := zapr.NewLogger(z).WithValues("service", name)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if _, err = proc.Start(ctx, log); err == nil {
		err = run(ctx, log)
	}
	stop()
	if err != nil {
		log.Error(err, "stopped")
		_ = z.Sync()
		os.Exit(1)
	}
	_ = z.Sync()
}

// LogLevel turns a -v verbosity (0 info, 1 debug, n logr V(n)) into the zap
// level logr's V(n) logs at, clamped to what a zapcore.Level can hold.
func LogLevel(verbosity int) zapcore.Level {
	return zapcore.Level(-int8(min(max(verbosity, 0), 127)))
}
