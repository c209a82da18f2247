package main

import (
	"context"
	"io"

	"kollect.dev/kollect/services/cli"
	"kollect.dev/kollect/services/cli/climain"
)

func main() {
	climain.Main(func(ctx context.Context, args []string, out, errOut io.Writer) int {
		return cli.Main(ctx, args, cli.Streams{Out: out, Err: errOut})
	})
}
