// Command collector runs the Kollect collector service.
package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/services/collector"
	"kollect.dev/kollect/services/collector/internal/logging"
)

func main() {
	cfg := collector.DefaultConfig()
	cfg.BindFlags(flag.CommandLine)
	proc := app.DefaultProcess()
	proc.BindFlags(flag.CommandLine)
	flag.Parse()
	log, err := logging.New(logging.Options{Development: cfg.LogDevelopment, Verbosity: cfg.LogVerbosity})
	if err != nil {
		_, _ = os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(2)
	}
	cfg.Logger = log
	klog.SetLogger(log.WithValues(logging.KeyService, "collector"))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if _, err = proc.Start(ctx, log.WithValues(logging.KeyService, "collector")); err == nil {
		err = collector.Run(ctx, cfg)
	}
	if err != nil {
		log.Error(err, "collector failed")
		os.Exit(1)
	}
}
