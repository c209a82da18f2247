// Command loadtest runs a Kollect load test tier and writes its report;
// `make loadtest TIER=10k [MODE=collect]` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"kollect.dev/kollect/loadtest"
	"kollect.dev/kollect/pkg/testenv"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

func main() {
	tier := flag.String("tier", "1k", "object count: 1k, 10k, 100k or a number")
	mode := flag.String("mode", "system", "system (every service, sinks, latencies), collect (only kollect collect vs kubectl) or abuse (one tenant floods the bus while another changes: growth, its latency p99, memory)")
	c, _ := loadtest.DefaultConfig("1k") // flag defaults; -tier sets the count
	flag.IntVar(&c.Namespaces, "namespaces", 0, "namespaces (default objects/100, between 10 and 100)")
	flag.IntVar(&c.Workers, "workers", c.Workers, "concurrent API writers")
	flag.IntVar(&c.Changes, "changes", c.Changes, "single-object changes in the change phase")
	flag.Float64Var(&c.ChangeRate, "change-rate", c.ChangeRate, "changes per second")
	flag.DurationVar(&c.Idle, "idle", c.Idle, "services left untouched after the initial sync to measure their idle CPU; 0 skips")
	flag.StringVar(&c.MemoryLimit, "memory-limit", os.Getenv("KOLLECT_LOADTEST_MEMORY_LIMIT"),
		"services' --memory-limit: a quantity for all, service=quantity,... for some, off for none; default $KOLLECT_LOADTEST_MEMORY_LIMIT, else the chart's container limits")
	flag.DurationVar(&c.ChangeWait, "change-wait", c.ChangeWait, "wait for the sinks after the last change; later ones count as missing")
	flag.IntVar(&c.Deletes, "deletes", c.Deletes, "objects deleted to time delete propagation")
	flag.IntVar(&c.CollectRuns, "collect-runs", c.CollectRuns, "timed runs of kollect collect and kubectl")
	flag.StringVar(&c.BinDir, "bin", "", "folder of the binaries (default the user cache)")
	flag.BoolVar(&c.NoBuild, "no-build", false, "use the binaries in -bin as they are")
	flag.StringVar(&c.OutDir, "out", "", "report folder (default <repo>/loadtest/results)")
	flag.DurationVar(&c.Timeout, "timeout", c.Timeout, "bound of each wait")
	flag.IntVar(&c.NATSNodes, "nats-nodes", c.NATSNodes, "nats-server processes of the bus's JetStream cluster (streams get 3 replicas from 3 nodes up)")
	flag.DurationVar(&c.Profile, "profile", 0, "take a CPU profile this long of every service during the initial sync (pprof files next to the report)")
	flag.DurationVar(&c.ProfileDelay, "profile-delay", 10*time.Second, "how far into the initial sync the profiles start")
	collectors := flag.Int("collectors", 0, "collector replicas (default 3 from 100k objects, else 1)")
	aggregators := flag.Int("aggregators", 0, "aggregator replicas (default 2 from 100k objects, else 1)")
	source := flag.String("source", "", "where the objects live: kube (created in the real API server) or sim (a simulated API server the collectors watch); default sim from 1m objects, else kube")
	flag.Parse()
	ctrllog.SetLogger(logr.Discard())
	c.CollectorReplicas, c.AggregatorReplicas = *collectors, *aggregators
	if err := run(c, *tier, *mode, *source); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

func run(c loadtest.Config, tier, mode, source string) error {
	d, err := loadtest.DefaultConfig(tier)
	if err != nil {
		return err
	}
	c.Tier, c.Objects, c.CollectOnly = d.Tier, d.Objects, mode == "collect"
	if mode != "system" && mode != "collect" && mode != "abuse" {
		return fmt.Errorf("unknown -mode %q: want system, collect or abuse", mode)
	}
	if c.Namespaces == 0 {
		c.Namespaces = d.Namespaces
	}
	if c.CollectorReplicas == 0 {
		c.CollectorReplicas = d.CollectorReplicas
	}
	if c.AggregatorReplicas == 0 {
		c.AggregatorReplicas = d.AggregatorReplicas
	}
	switch c.Source = d.Source; source {
	case "":
	case loadtest.SourceKube, loadtest.SourceSim:
		c.Source = source
	default:
		return fmt.Errorf("unknown -source %q: want kube or sim", source)
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		return err
	}
	if c.OutDir == "" {
		c.OutDir = filepath.Join(root, "loadtest", "results")
	}
	if c.BinDir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		c.BinDir = filepath.Join(cache, "kollect", "loadtest-bin")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if mode == "abuse" {
		a := loadtest.DefaultAbuseConfig()
		a.BinDir, a.NoBuild, a.Log = c.BinDir, c.NoBuild, os.Stdout
		return loadtest.AbusePhase(ctx, a, c.OutDir, os.Stdout)
	}
	_, err = loadtest.Run(ctx, os.Stdout, c)
	return err
}
