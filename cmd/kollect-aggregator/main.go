package main

import (
	"context"

	"github.com/go-logr/logr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/services/aggregator"
)

func main() {
	c := aggregator.DefaultConfig()
	app.Main(string(busv1.ServiceAggregator), &c, func(ctx context.Context, log logr.Logger) error {
		c.Log = log
		return aggregator.Run(ctx, c)
	})
}
