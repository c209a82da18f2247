package loadtest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Config is one load-test run's settings.
type Config struct {
	// Tier names the run ("1k", "10k", "100k"); Objects is its object count.
	Tier    string
	Objects int
	// Namespaces spread the objects; default Objects/100 (at least 1).
	Namespaces int
	// Workers bound the concurrent API writes; QPS and Burst are the
	// client-side rate limit.
	Workers int
	QPS     float32
	Burst   int
	// Changes single-object changes are made at ChangeRate per second.
	Changes    int
	ChangeRate float64
	// Idle is how long the services run untouched after the initial sync,
	// to measure the CPU they use doing nothing; zero skips it.
	Idle time.Duration
	// MemoryLimit sets the services' --memory-limit (demo.ParseMemoryLimits:
	// "" the chart's default container limits, a quantity for all,
	// service=quantity,... for some, "off" for none).
	MemoryLimit string
	// ChangeWait bounds the wait for the sinks after the last change;
	// later changes count as missing.
	ChangeWait time.Duration
	// Deletes objects are deleted at once to time delete propagation.
	Deletes int
	// CollectOnly skips the services and only times `kollect collect`.
	CollectOnly bool
	// CollectRuns is how many times `kollect collect` is timed.
	CollectRuns int
	// BinDir holds the binaries, built there unless NoBuild.
	BinDir  string
	NoBuild bool
	// OutDir receives the report files.
	OutDir string
	// Timeout bounds each wait (initial sync, delete propagation).
	Timeout time.Duration
	// NATSNodes is the size of the bus's JetStream cluster, nats-server
	// processes on loopback; its streams get three replicas from three
	// nodes up, as the chart provisions them.
	NATSNodes int
}

// DefaultConfig returns the settings of a tier.
func DefaultConfig(tier string) (Config, error) {
	n, err := ParseTier(tier)
	if err != nil {
		return Config{}, err
	}
	return Config{Tier: tier, Objects: n, Namespaces: max(1, n/100), Workers: 32, QPS: 500, Burst: 1000,
		Changes: 1000, ChangeRate: 20, Idle: 10 * time.Second, ChangeWait: time.Minute, Deletes: 100, CollectRuns: 3, Timeout: 15 * time.Minute, NATSNodes: 3}, nil
}

// ParseTier reads an object count written as 1000, 1k or 1m.
func ParseTier(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1000, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "m"):
		mult, t = 1000000, strings.TrimSuffix(t, "m")
	}
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("parse tier %q: want a positive count like 1k, 10k or 100k", s)
	}
	return n * mult, nil
}
