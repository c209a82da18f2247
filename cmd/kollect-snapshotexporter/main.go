package main

import (
	"context"

	"github.com/go-logr/logr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/services/snapshotexporter"
)

func main() {
	c := snapshotexporter.DefaultConfig()
	app.Main(string(busv1.ServiceSnapshotExporter), &c, func(ctx context.Context, log logr.Logger) error {
		c.Log = log
		return snapshotexporter.Run(ctx, c)
	})
}
