package logging

import (
	"fmt"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"go.uber.org/zap"

	"kollect.dev/kollect/pkg/app"
)

// Log keys, in lowerCamel.
const (
	// KeyService names the reporting service.
	KeyService = "service"
	// KeyTarget is a Target as <namespace>/<name>, or a ClusterTarget's name.
	KeyTarget = "target"
	// KeyKind is the kind of a Kollect object (KollectTarget, ...).
	KeyKind = "kind"
	// KeyGeneration is the generation of the object acted on.
	KeyGeneration = "generation"
	// KeyGVK is a watched group/version/kind.
	KeyGVK = "gvk"
	// KeyObject is a watched object as <namespace>/<name>.
	KeyObject = "object"
	// KeyNamespace is a watched namespace.
	KeyNamespace = "namespace"
	// KeyKey is a KV key.
	KeyKey = "key"
	// KeySubject is a bus subject.
	KeySubject = "subject"
	// KeyIdentity is this replica's leader-election identity.
	KeyIdentity = "identity"
	// KeyAddress is a listen address.
	KeyAddress = "address"
	// KeyCount is a number of things handled.
	KeyCount = "count"
)

// Options choose the logger's format and verbosity.
type Options struct {
	// Development selects human-readable console output instead of JSON.
	Development bool
	// Verbosity is the highest logr V-level written (0 info only, 1 debug).
	Verbosity int
}

// New returns a logr.Logger backed by zap, writing JSON (or console output
// in development mode) to standard error.
func New(o Options) (logr.Logger, error) {
	cfg := zap.NewProductionConfig()
	if o.Development {
		cfg = zap.NewDevelopmentConfig()
	}
	cfg.Level = zap.NewAtomicLevelAt(app.LogLevel(o.Verbosity))
	cfg.Sampling = nil
	cfg.DisableStacktrace = !o.Development
	z, err := cfg.Build()
	if err != nil {
		return logr.Discard(), fmt.Errorf("build zap logger: %w", err)
	}
	return zapr.NewLogger(z), nil
}
