package main

import (
	"context"
	"io"

	"kollect.dev/kollect/services/cli/climain"
	"kollect.dev/kollect/services/cli/verify/command"
)

func main() {
	climain.Main(func(ctx context.Context, args []string, out, errOut io.Writer) int {
		return command.Main(ctx, args, command.Streams{Out: out, Err: errOut})
	})
}
