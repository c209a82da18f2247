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
)

func main() {
	var o demo.Options
	flag.StringVar(&o.BinDir, "bin", "", "folder of the service binaries (default <repo>/bin)")
	flag.BoolVar(&o.NoBuild, "no-build", false, "use the binaries in -bin as they are")
	flag.BoolVar(&o.Once, "once", false, "stop after showing the change")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := demo.Run(ctx, os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		stop()
		os.Exit(1)
	}
}
