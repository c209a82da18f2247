package main

import (
	"context"

	"github.com/go-logr/logr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/services/query"
)

func main() {
	c := query.DefaultConfig()
	app.Main(string(busv1.ServiceQuery), &c, func(ctx context.Context, log logr.Logger) error {
		c.Log = log
		return query.Run(ctx, c)
	})
}
