package cli

import (
	"flag"

	"github.com/spf13/cobra"

	"kollect.dev/kollect/pkg/extract"
)

// bindExtractFlags adds the collector's Profile compilation flags
// (--redact-keys, --redact-no-defaults, --cel-cost-limit) to cmd, so that the
// CLI compiles and redacts as a collector given the same flags does.
func bindExtractFlags(cmd *cobra.Command, o *extract.Options) {
	fs := flag.NewFlagSet(cmd.Name(), flag.ContinueOnError)
	o.BindFlags(fs)
	cmd.Flags().AddGoFlagSet(fs)
}
