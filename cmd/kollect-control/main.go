package main

import (
	"context"

	"github.com/go-logr/logr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/services/control"
)

func main() {
	c := control.DefaultConfig()
	app.Main(string(busv1.ServiceControl), &c, func(ctx context.Context, log logr.Logger) error {
		c.Log = log
		return control.Run(ctx, c)
	})
}
