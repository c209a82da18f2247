package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/spf13/cobra"

	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/cli/internal/manifests"
	"kollect.dev/kollect/services/cli/internal/migrate"
	"kollect.dev/kollect/services/cli/internal/validate"
)

// validateReport is validate -o json: one document a CI step can read.
type validateReport struct {
	Valid    bool              `json:"valid"`
	Objects  int               `json:"objects"`
	Errors   int               `json:"errors"`
	Warnings int               `json:"warnings"`
	Findings []validateFinding `json:"findings"`
}

type validateFinding struct {
	Source  string `json:"source"`
	Object  string `json:"object"`
	Level   string `json:"level"`
	Message string `json:"message"`
}

func newValidateCommand(s Streams) *cobra.Command {
	var opts extract.Options
	output := "text"
	cmd := &cobra.Command{
		Use:   "validate DIR|FILE|-",
		Short: "Check a folder of Kollect custom resources offline",
		Long: `validate checks every kollect.dev object of DIR against the CRD schemas and CEL rules the
API server enforces, then compiles Profiles and Targets with the services' compilers. Each
problem names the file, the object and the field. Exit status 2 when anything is invalid.
Established spellings of the API (see kollect migrate) are warnings naming the canonical
spelling; they do not change the exit status. "-" reads the manifests from standard input.`,
		Example: `  kollect validate docs/examples/quickstart
  kustomize build overlays/prod | kollect validate -
  kollect validate -o json manifests/ > findings.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return &climain.ExitError{Code: 2, Err: fmt.Errorf("validate: -o %q: want text or json", output)}
			}
			return runValidate(cmd, s, args[0], output == "json", opts)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", output, "output format: text or json")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	bindExtractFlags(cmd, &opts)
	return cmd
}

func runValidate(cmd *cobra.Command, s Streams, dir string, asJSON bool, opts extract.Options) error {
	read := os.ReadFile
	if dir == manifests.Stdin {
		in := s.In
		if in == nil {
			in = os.Stdin
		}
		b, err := io.ReadAll(in)
		if err != nil {
			return &climain.ExitError{Code: 2, Err: fmt.Errorf("validate: read standard input: %w", err)}
		}
		read = func(string) ([]byte, error) { return b, nil }
	}
	objs, err := manifests.LoadWith(dir, read)
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	findings, err := validate.Folder(cmd.Context(), objs, opts)
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	spellings, err := migrate.Folder(dir, read)
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	for _, f := range spellings {
		for _, l := range f.Findings {
			findings = append(findings, validate.Finding{Source: l.Source, Object: l.Object, Message: l.Message(), Warning: true})
		}
	}
	rep := validateReport{Objects: len(objs), Findings: []validateFinding{}}
	for _, f := range findings {
		level := "error"
		if f.Warning {
			level = "warning"
			rep.Warnings++
		} else {
			rep.Errors++
		}
		rep.Findings = append(rep.Findings, validateFinding{Source: f.Source, Object: f.Object, Level: level, Message: f.Message})
	}
	rep.Valid = rep.Errors == 0
	if asJSON {
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		for _, f := range findings {
			fmt.Fprintln(s.Out, f)
		}
	}
	if !rep.Valid {
		return &climain.ExitError{Code: 2, Err: fmt.Errorf("%d problem(s) in %s", rep.Errors, dir)}
	}
	if !asJSON {
		fmt.Fprintf(s.Out, "%d object(s) valid\n", len(objs))
	}
	return nil
}
