package main

import (
	"context"

	"github.com/go-logr/logr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/services/eventexporter"
)

func main() {
	c := eventexporter.DefaultConfig()
	app.Main(string(busv1.ServiceEventExporter), &c, func(ctx context.Context, log logr.Logger) error {
		c.Log = log
		return eventexporter.Run(ctx, c)
	})
}
