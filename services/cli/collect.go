package cli

import (
	"fmt"
	"os"
	"slices"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/spf13/cobra"

	"kollect.dev/kollect/services/cli/internal/collect"
	"kollect.dev/kollect/services/cli/internal/manifests"
)

// collectFlags are collect's own flags; the client flags are the root's.
type collectFlags struct {
	opts          collect.Options
	config        string
	output        string // -o: a format (or, deprecated, a folder)
	format        string // --format, deprecated alias of -o
	outputDir     string
	allNamespaces bool
	adhoc         adhocFlags
}

func newCollectCommand(s Streams, kube *kubeFlags) *cobra.Command {
	f := &collectFlags{}
	cmd := &cobra.Command{
		Use:   "collect (--config DIR | --kind RESOURCE --attr NAME=EXPR...)",
		Short: "Collect rows from kubeconfig contexts as the operator would, with no install",
		Long: `collect runs the Targets of a folder of Kollect custom resources against one or more
kubeconfig contexts and writes one record per inventory (or per Target when the folder has no
inventory): {context, inventory, path, envelope}. With --output-dir the records become the files a
Git snapshot sink would commit.

Without a folder, --kind and --attr collect one kind ad hoc, as a Profile and a Target with those
attributes would: -n restricts it to a namespace (default: the context's), -A reads all of them,
-l selects by label, and the rows are printed as a table (or -o json|yaml|ndjson records).

-n restricts a folder's collection to that namespace too (and is the namespace of folder objects
that have none). A user who may not list namespaces collects from the Targets' namespaces.

Exit status: 0 all collected, 1 partial, 2 nothing collected or invalid input.`,
		Example: `  # every inventory of a folder, from the current context, as NDJSON records
  kollect collect --config docs/examples

  # the same from every prod context, as the files a Git sink would commit
  kollect collect --config docs/examples --context 'prod-*' --output-dir ./out -o yaml

  # only what the folder selects in namespace shop
  kollect collect --config docs/examples -n shop

  # ad hoc: the first image of every Deployment labelled app=web, in all namespaces
  kollect collect --kind deployments.apps -A -l app=web \
    --attr image='$.spec.template.spec.containers[0].image' \
    --attr replicas='cel:object.spec.replicas'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCollect(cmd, s, kube, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "folder (or file) of Kollect custom resources")
	fl.StringVarP(&f.output, "output", "o", "", "output format: "+formatList+" (default ndjson, table with --kind)")
	fl.StringVar(&f.outputDir, "output-dir", "", "write the files a Git snapshot sink would commit into this folder, one subfolder per context")
	fl.StringVar(&f.format, "format", "", "output format")
	fl.StringVar(&f.opts.Layout, "layout", "document", "files under --output-dir: document, perResource or split, as a Git snapshot sink's layout.mode")
	fl.BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "collect from every namespace the Targets select (with --kind: every namespace)")
	fl.Int64Var(&f.opts.PageSize, "page-size", 500, "objects per list request")
	f.adhoc.bind(cmd)
	bindExtractFlags(cmd, &f.opts.Extract)
	_ = fl.MarkHidden("format") // deprecated: resolveOutput warns on standard error
	cmd.MarkFlagsOneRequired("config", "kind")
	cmd.MarkFlagsMutuallyExclusive("config", "kind")
	_ = cmd.MarkFlagDirname("config")
	_ = cmd.MarkFlagDirname("output-dir")
	registerCompletions(cmd, kube)
	return cmd
}

func runCollect(cmd *cobra.Command, s Streams, kube *kubeFlags, f *collectFlags) error {
	format, err := f.resolveOutput(s)
	if err != nil {
		return &climain.ExitError{Code: collect.ExitNothing, Err: err}
	}
	opts := f.opts
	opts.Kube, opts.Contexts, opts.Warnings = kube, kube.contexts, s.Err
	ns, explicit, err := kube.namespaceOf(kube.firstContext())
	if err != nil {
		return &climain.ExitError{Code: collect.ExitNothing, Err: err}
	}
	if explicit && f.allNamespaces {
		return &climain.ExitError{Code: collect.ExitNothing, Err: fmt.Errorf("-n/--namespace and -A/--all-namespaces exclude each other")}
	}
	var objs []manifests.Object
	var cols []string
	if f.config != "" {
		if f.adhoc.labels != "" {
			return &climain.ExitError{Code: collect.ExitNothing, Err: fmt.Errorf("-l/--selector selects objects of --kind; a folder's Targets select their own")}
		}
		if objs, err = manifests.Load(f.config); err != nil {
			return &climain.ExitError{Code: collect.ExitNothing, Err: err}
		}
		if explicit {
			opts.Namespace, opts.Namespaces = ns, []string{ns}
		}
	} else {
		if !f.allNamespaces {
			opts.Namespaces = []string{ns}
		}
		if objs, err = f.adhoc.objects(cmd.Context(), kube, ns, f.allNamespaces); err != nil {
			return &climain.ExitError{Code: collect.ExitNothing, Err: err}
		}
		cols = f.adhoc.columns()
	}
	if format == "" {
		format = "ndjson"
		if f.config == "" && f.outputDir == "" {
			format = "table"
		}
	}
	if isProgressTerminal(s.Err) {
		opts.Progress = s.Err
	}
	code, err := collectTo(cmd, s, objs, opts, format, cols)
	if opts.Progress != nil {
		fmt.Fprint(s.Err, "\r\033[K")
	}
	if code != 0 || err != nil {
		return &climain.ExitError{Code: code, Err: err}
	}
	return nil
}

// resolveOutput reads -o, --format and --output-dir, keeping the old
// spellings: -o DIR (and -o -) for the folder, --format for the format.
func (f *collectFlags) resolveOutput(s Streams) (string, error) {
	format := f.output
	if format != "" && !slices.Contains(formats, format) {
		if f.outputDir != "" {
			return "", fmt.Errorf("-o/--output %q: must be one of %s", format, formatList)
		}
		if format != "-" {
			fmt.Fprintf(s.Err, "Flag -o/--output as a folder has been deprecated, use --output-dir %s\n", format)
			f.outputDir = format
		} else {
			fmt.Fprintln(s.Err, "Flag -o/--output - has been deprecated, standard output is the default")
		}
		format = ""
	}
	if f.format != "" {
		fmt.Fprintln(s.Err, "Flag --format has been deprecated, use -o/--output")
		if format != "" && format != f.format {
			return "", fmt.Errorf("-o/--output %q and --format %q disagree", format, f.format)
		}
		format = f.format
		if !slices.Contains(formats, format) {
			return "", fmt.Errorf("--format %q: must be one of %s", format, formatList)
		}
	}
	if f.outputDir != "" {
		if format == "table" || format == "wide" {
			return "", fmt.Errorf("-o/--output %q: files under --output-dir are ndjson, json or yaml", format)
		}
		f.opts.Output = f.outputDir
	}
	f.opts.Format = format
	if format == "table" || format == "wide" {
		f.opts.Format = "ndjson"
	}
	return format, nil
}

// isProgressTerminal reports whether progress lines (with ANSI erase) belong
// on w: a terminal that is not TERM=dumb.
func isProgressTerminal(w any) bool {
	ww, ok := w.(interface{ Write([]byte) (int, error) })
	return ok && isTerminal(ww) && os.Getenv("TERM") != "dumb"
}
