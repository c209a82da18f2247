// Command aggregator runs the Kollect aggregator service.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-logr/zapr"
	"go.uber.org/zap"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/services/aggregator"
)

func main() {
	c := aggregator.DefaultConfig()
	c.BindFlags(flag.CommandLine)
	proc := app.DefaultProcess()
	proc.BindFlags(flag.CommandLine)
	flag.Parse()
	z, err := zap.NewProduction()
	if err != nil {
		fmt.Fprintln(os.Stderr, "aggregator:", err)
		os.Exit(1)
	}
	defer func() { _ = z.Sync() }()
	c.Log = zapr.NewLogger(z)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err = proc.Start(ctx, c.Log); err == nil {
		err = aggregator.Run(ctx, c)
	}
	if err != nil {
		c.Log.Error(err, "aggregator stopped")
		os.Exit(1)
	}
}
