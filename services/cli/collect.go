package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"kollect.dev/kollect/services/cli/internal/collect"
	"kollect.dev/kollect/services/cli/internal/manifests"
)

func newCollectCommand(s Streams) *cobra.Command {
	var opts collect.Options
	var config string
	cmd := &cobra.Command{
		Use:   "collect --config DIR",
		Short: "Collect rows from kubeconfig contexts as the operator would, with no install",
		Long: `collect runs the Targets of a folder of Kollect custom resources against one or more
kubeconfig contexts and writes one record per inventory (or per Target when the folder has no
inventory): {context, inventory, path, envelope}. Exit status: 0 all collected, 1 partial,
2 nothing collected or invalid input.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if config == "" {
				return &ExitError{Code: collect.ExitNothing, Err: fmt.Errorf("--config is required")}
			}
			objs, err := manifests.Load(config)
			if err != nil {
				return &ExitError{Code: collect.ExitNothing, Err: err}
			}
			if isTerminal(s.Err) {
				opts.Progress = s.Err
			}
			code, err := collect.Run(cmd.Context(), objs, opts, s.Out)
			if opts.Progress != nil {
				fmt.Fprintln(s.Err)
			}
			if code != 0 || err != nil {
				return &ExitError{Code: code, Err: err}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&config, "config", "", "folder (or file) of Kollect custom resources")
	f.StringVar(&opts.Kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
	f.StringSliceVar(&opts.Contexts, "context", nil, "kubeconfig context name or glob; repeatable (default: the current context)")
	f.StringVarP(&opts.Namespace, "namespace", "n", "", "namespace for namespaced resources of the folder that have none")
	f.StringVarP(&opts.Output, "output", "o", "-", "- for standard output, or a folder to write snapshot files into")
	f.StringVar(&opts.Format, "format", "ndjson", "ndjson, json or yaml")
	f.StringVar(&opts.Layout, "layout", "document", "files under --output: document, perResource or split, as a Git snapshot sink's layout.mode")
	f.Int64Var(&opts.PageSize, "page-size", 500, "objects per list request")
	bindExtractFlags(cmd, &opts.Extract)
	return cmd
}
