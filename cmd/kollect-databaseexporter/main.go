package main

import (
	"context"

	"github.com/go-logr/logr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/services/databaseexporter"
)

func main() {
	c := databaseexporter.DefaultConfig()
	app.Main(string(busv1.ServiceDatabaseExporter), &c, func(ctx context.Context, log logr.Logger) error {
		c.Log = log
		return databaseexporter.Run(ctx, c)
	})
}
