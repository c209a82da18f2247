package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"kollect.dev/kollect/services/cli/verify/command"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := command.Main(ctx, os.Args[1:], command.Streams{Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
