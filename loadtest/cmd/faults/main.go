// Command faults runs the fault-injection suite (`make faults`): every
// service, nats-server, PostgreSQL and a Git server as processes, crash
// points and kill -9 while changes flow, then checks that every sink equals
// the cluster with no revision going backwards and no duplicate. It writes
// loadtest/results/faults-<date>.md and .json and exits 1 when a run failed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"kollect.dev/kollect/loadtest"
)

func main() {
	c := loadtest.DefaultFaultConfig()
	short := flag.Bool("short", false, "the version make test runs: 1k objects, every fault once")
	only := flag.String("only", "", "comma-separated substrings: run only the faults whose name contains one")
	out := flag.String("out", "loadtest/results", "folder of the report")
	objects := flag.Int("objects", 0, "load objects (default 10000, 1000 with -short)")
	runs := flag.Int("runs", 0, "runs of every fault (default 20, 1 with -short)")
	flag.StringVar(&c.BinDir, "bin", filepath.Join(os.TempDir(), "kollect-faults-bin"), "folder of the built binaries")
	flag.BoolVar(&c.NoBuild, "no-build", false, "use the binaries already in -bin")
	seed := flag.Uint64("seed", 1, "seed of the fault moments and crash-point hits")
	flag.Parse()
	if *short {
		c = withBin(loadtest.ShortFaultConfig(), c)
	}
	if *objects > 0 {
		c.Objects, c.Namespaces = *objects, max(1, *objects/100)
	}
	if *runs > 0 {
		c.Runs = *runs
	}
	if *only != "" {
		c.Only = strings.Split(*only, ",")
	}
	c.Seed, c.Log = *seed, os.Stdout
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	rep, err := loadtest.RunFaults(ctx, c)
	if rep != nil {
		if werr := write(*out, rep); werr != nil {
			fmt.Fprintln(os.Stderr, "write report:", werr)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		os.Exit(2)
	}
	if f := rep.Failed(); len(f) > 0 {
		fmt.Fprintf(os.Stderr, "faults: %d of %d runs failed\n", len(f), len(rep.Outcomes))
		os.Exit(1)
	}
}

func withBin(c, from loadtest.FaultConfig) loadtest.FaultConfig {
	c.BinDir, c.NoBuild = from.BinDir, from.NoBuild
	return c
}

func write(dir string, rep *loadtest.FaultReport) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(dir, "faults-"+time.Now().UTC().Format("2006-01-02"))
	f, err := os.Create(base + ".md")
	if err != nil {
		return err
	}
	rep.WriteMarkdown(f)
	if err := f.Close(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	fmt.Println("report:", base+".md")
	return os.WriteFile(base+".json", b, 0o644)
}
