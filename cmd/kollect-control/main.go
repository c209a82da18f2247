package main

import (
	"context"
	"os"

	"github.com/go-logr/logr"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/services/control"
	"kollect.dev/kollect/services/control/initsecrets"
)

func main() {
	// init-secrets makes the credentials the chart does not render (its hook Job).
	if len(os.Args) > 1 && os.Args[1] == initsecrets.Command {
		os.Exit(initsecrets.Main(os.Args[2:], os.Stderr))
	}
	c := control.DefaultConfig()
	app.Main(string(busv1.ServiceControl), &c, func(ctx context.Context, log logr.Logger) error {
		c.Log = log
		return control.Run(ctx, c)
	})
}
