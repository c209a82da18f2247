package app

import (
	"context"
	"flag"
	"fmt"

	"github.com/go-logr/logr"
)

// DefaultMemoryLimitRatio is the share of the process's memory limit the Go
// runtime gets as its soft limit: the rest is headroom for memory the
// runtime does not count (stacks of cgo threads, the binary, page cache the
// kernel charges to the container) and for the collector's burst above the
// limit before the GC catches up.
const DefaultMemoryLimitRatio = 0.85

// Process are the settings of a service's process rather than of the
// service: the Go runtime's soft memory limit and an opt-in pprof listener.
// Every service binary binds them (BindFlags) and calls Start before its
// Run; `kollect dev` does so once for all the services it runs.
type Process struct {
	// PprofBindAddress serves net/http/pprof's profiles on a listener of
	// their own, never on the metrics server; "" or "0" (the default)
	// disables it.
	PprofBindAddress string
	// MemoryLimit is the memory the process may use, as its container's
	// limit: the Go runtime's soft limit is MemoryLimitRatio of it. Zero
	// reads EnvMemoryLimit; GOMEMLIMIT in the environment wins over both.
	MemoryLimit Bytes
	// MemoryLimitRatio is the share of MemoryLimit given to the runtime, in
	// (0, 1].
	MemoryLimitRatio float64
}

// DefaultProcess returns the defaults: no pprof listener, no memory limit
// unless the environment gives one, DefaultMemoryLimitRatio.
func DefaultProcess() Process {
	return Process{MemoryLimitRatio: DefaultMemoryLimitRatio}
}

// BindFlags registers --pprof-bind-address, --memory-limit and
// --memory-limit-ratio on fs, defaulting to p's values.
func (p *Process) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&p.PprofBindAddress, "pprof-bind-address", p.PprofBindAddress,
		"Address of a listener serving Go profiles under /debug/pprof/ (e.g. 127.0.0.1:6060); empty or 0 disables.")
	fs.Var(&p.MemoryLimit, "memory-limit",
		"Memory this process may use, as a quantity (e.g. 256Mi): the Go runtime's soft limit is --memory-limit-ratio of it. "+
			"Unset reads $"+EnvMemoryLimit+" (the container's limit in the chart); $GOMEMLIMIT wins over both.")
	fs.Float64Var(&p.MemoryLimitRatio, "memory-limit-ratio", p.MemoryLimitRatio,
		"Share of the memory limit given to the Go runtime as its soft limit, in (0, 1].")
}

// Start applies the memory limit and, when PprofBindAddress is set, serves
// profiles until ctx ends. It returns the address profiles are served on
// ("" when off) and fails on invalid settings or when it cannot listen, so
// a service does not start half-configured.
func (p Process) Start(ctx context.Context, log logr.Logger) (string, error) {
	limit, source, err := p.ApplyMemoryLimit()
	if err != nil {
		return "", err
	}
	if source != "" {
		log.Info("Go memory limit", "bytes", limit, "from", source)
	}
	addr, err := servePprof(ctx, p.PprofBindAddress, log)
	if err != nil {
		return "", fmt.Errorf("start pprof listener: %w", err)
	}
	return addr, nil
}
