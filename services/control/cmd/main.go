// Command control runs the Kollect control service.
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

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/services/control"
)

func main() {
	cfg := control.DefaultConfig()
	cfg.BindFlags(flag.CommandLine)
	proc := app.DefaultProcess()
	proc.BindFlags(flag.CommandLine)
	flag.Parse()
	z, err := zap.NewProduction()
	if err != nil {
		fmt.Fprintln(os.Stderr, "control: build logger:", err)
		os.Exit(1)
	}
	cfg.Log = zapr.NewLogger(z).WithValues("service", busv1.ServiceControl)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err = proc.Start(ctx, cfg.Log); err == nil {
		err = control.Run(ctx, cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "control:", err)
		os.Exit(1)
	}
}
