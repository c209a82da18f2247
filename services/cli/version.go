package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/spf13/cobra"

	"kollect.dev/kollect/pkg/version"
)

// buildInfo is what `kollect version` prints.
type buildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// currentBuild returns the version and commit the release build stamped
// (pkg/version); a binary built by `go install ...@vX` or `go build` has
// none, and reports the module version and VCS revision Go recorded.
func currentBuild() buildInfo {
	b := buildInfo{Version: version.Version, Commit: version.Commit, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	return fillFromBuildInfo(b, bi)
}

func fillFromBuildInfo(b buildInfo, bi *debug.BuildInfo) buildInfo {
	if b.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		b.Version = bi.Main.Version
	}
	if b.Commit == "unknown" {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				b.Commit = s.Value
			}
		}
	}
	return b
}

func (b buildInfo) String() string { return b.Version + " (" + b.Commit + ")" }

// newVersionCommand returns `kollect version`.
func newVersionCommand(s Streams) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version [-o json|yaml]",
		Short: "Print the version and source commit of this binary",
		Long: `version prints the version and source commit the release build stamped into the binary; a
binary from go install or go build reports the module version and VCS revision Go recorded
("dev (unknown)" when there are none). -o json adds the Go version and the platform.`,
		Example: `  kollect version
  kollect version -o json
  kollect --version`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			b := currentBuild()
			switch output {
			case "":
				_, err := fmt.Fprintln(s.Out, "kollect", b)
				return err
			case "json", "yaml":
				if output == "json" {
					enc := json.NewEncoder(s.Out)
					enc.SetIndent("", "  ")
					return enc.Encode(b)
				}
				_, err := fmt.Fprintf(s.Out, "version: %q\ncommit: %q\ngoVersion: %q\nplatform: %q\n", b.Version, b.Commit, b.GoVersion, b.Platform)
				return err
			}
			return &climain.ExitError{Code: 2, Err: fmt.Errorf("-o/--output %q: must be json or yaml", output)}
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "json or yaml (default: one line)")
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletions([]string{"json", "yaml"}))
	return cmd
}
