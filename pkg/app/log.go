package app

import (
	"flag"
	"fmt"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"k8s.io/klog/v2"
)

// LogOptions choose the logger's format and verbosity.
type LogOptions struct {
	// Development selects human-readable console output instead of JSON.
	Development bool
	// Verbosity is the highest logr V-level written (0 info only, 1 debug).
	Verbosity int
}

// DefaultLogOptions returns JSON logs at info level.
func DefaultLogOptions() LogOptions { return LogOptions{} }

// BindFlags registers --log-development and -v on fs, defaulting to o's
// values.
func (o *LogOptions) BindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Development, "log-development", o.Development, "Human-readable console logs instead of JSON.")
	fs.IntVar(&o.Verbosity, "v", o.Verbosity, "Log verbosity: 0 info, 1 debug.")
}

// Logger builds a zap logger behind logr writing to standard error, with
// KeyService set to service (once: services do not add it again). It also
// becomes klog's logger, so client-go's lines carry the same keys. sync
// flushes it before the process exits.
func (o LogOptions) Logger(service string) (log logr.Logger, sync func(), err error) {
	cfg := zap.NewProductionConfig()
	if o.Development {
		cfg = zap.NewDevelopmentConfig()
	}
	cfg.Level = zap.NewAtomicLevelAt(LogLevel(o.Verbosity))
	cfg.Sampling = nil
	cfg.DisableStacktrace = !o.Development
	z, err := cfg.Build()
	if err != nil {
		return logr.Discard(), func() {}, fmt.Errorf("build logger: %w", err)
	}
	log = zapr.NewLogger(z).WithValues(KeyService, service)
	klog.SetLogger(log)
	return log, func() { _ = z.Sync() }, nil
}

// LogLevel turns a -v verbosity (0 info, 1 debug, n logr V(n)) into the zap
// level logr's V(n) logs at, clamped to what a zapcore.Level can hold.
func LogLevel(verbosity int) zapcore.Level {
	return zapcore.Level(-int8(min(max(verbosity, 0), 127)))
}
