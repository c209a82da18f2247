package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/cli/internal/manifests"
	"kollect.dev/kollect/services/cli/internal/migrate"
	"kollect.dev/kollect/services/cli/internal/validate"
)

func newValidateCommand(s Streams) *cobra.Command {
	var opts extract.Options
	cmd := &cobra.Command{
		Use:   "validate DIR",
		Short: "Check a folder of Kollect custom resources offline",
		Long: `validate checks every kollect.dev object of DIR against the CRD schemas and CEL rules the
API server enforces, then compiles Profiles and Targets with the services' compilers. Each
problem names the file, the object and the field. Exit status 2 when anything is invalid.
Established spellings of the API (see kollect migrate) are warnings naming the canonical
spelling; they do not change the exit status.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			objs, err := manifests.Load(args[0])
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			findings, err := validate.Folder(cmd.Context(), objs, opts)
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			spellings, err := migrate.Folder(args[0], os.ReadFile)
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			for _, f := range spellings {
				for _, l := range f.Findings {
					findings = append(findings, validate.Finding{Source: l.Source, Object: l.Object, Message: l.Message(), Warning: true})
				}
			}
			invalid := 0
			for _, f := range findings {
				fmt.Fprintln(s.Out, f)
				if !f.Warning {
					invalid++
				}
			}
			if invalid > 0 {
				return &ExitError{Code: 2, Err: fmt.Errorf("%d problem(s) in %s", invalid, args[0])}
			}
			fmt.Fprintf(s.Out, "%d object(s) valid\n", len(objs))
			return nil
		},
	}
	bindExtractFlags(cmd, &opts)
	return cmd
}
