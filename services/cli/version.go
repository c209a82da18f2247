package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"kollect.dev/kollect/pkg/version"
)

// newVersionCommand returns `kollect version`: it prints the version and source commit
// the release build stamped into the binary ("dev (unknown)" in a development build).
func newVersionCommand(s Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and source commit of this binary",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(s.Out, "kollect", version.String())
			return err
		},
	}
}
