package main

import (
	"context"

	"github.com/go-logr/logr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/services/collector"
)

func main() {
	c := collector.DefaultConfig()
	app.Main(string(busv1.ServiceCollector), &c, func(ctx context.Context, log logr.Logger) error {
		c.Log = log
		return collector.Run(ctx, c)
	})
}
