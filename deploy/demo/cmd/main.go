// Command demo runs Kollect end to end on this machine, every service its
// own process; `make demo` runs it after building the tools and binaries.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"kollect.dev/kollect/deploy/demo"
	"kollect.dev/kollect/pkg/testenv"
)

func main() {
	var o demo.Options
	flag.StringVar(&o.BinDir, "bin", "", "folder of the service binaries (default <repo>/bin)")
	flag.BoolVar(&o.NoBuild, "no-build", false, "use the binaries in -bin as they are")
	flag.BoolVar(&o.Once, "once", false, "stop after showing the change")
	limits := flag.String("memory-limit", "", "services' --memory-limit: a quantity for all, service=quantity,... for some, off for none (default the chart's limits)")
	flag.Parse()
	demo.RouteLogs()
	if *limits != "" {
		root, err := testenv.RepoRoot()
		if err == nil {
			var defaults map[string]string
			if defaults, err = demo.ChartMemoryLimits(root); err == nil {
				o.MemoryLimits, err = demo.ParseMemoryLimits(*limits, defaults)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "demo: -memory-limit:", err)
			os.Exit(2)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := demo.Run(ctx, os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		stop()
		os.Exit(1)
	}
}
