package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/spf13/cobra"

	"kollect.dev/kollect/services/cli/internal/collect"
	"kollect.dev/kollect/services/cli/internal/manifests"
)

// collectFlags are collect's own flags; the client flags are the root's.
type collectFlags struct {
	opts          collect.Options
	config        string
	output        string // -o: a format
	noHeaders     bool
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
	fl.StringVarP(&f.output, "output", "o", "", "output format: "+validFormats(true, false)+" (default ndjson, table with --kind); a folder is --output-dir")
	fl.StringVar(&f.outputDir, "output-dir", "", "write the files a Git snapshot sink would commit into this folder, one subfolder per context")
	fl.StringVar(&f.format, "format", "", "output format")
	fl.StringVar(&f.opts.Layout, "layout", "document", "files under --output-dir: document, perResource or split, as a Git snapshot sink's layout.mode")
	fl.BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "collect from every namespace the Targets select (with --kind: every namespace)")
	fl.Int64Var(&f.opts.PageSize, "page-size", 500, "objects per list request")
	noHeadersFlag(cmd, &f.noHeaders)
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
		if ee, ok := errors.AsType[*climain.ExitError](err); ok {
			return ee
		}
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
	if format.name == "" {
		format.name = "ndjson"
		if f.config == "" && f.outputDir == "" {
			format.name = "table"
		}
	}
	if isProgressTerminal(s.Err) {
		opts.Progress = s.Err
	}
	code, err := collectTo(cmd, s, objs, opts, format, cols, f.noHeaders)
	if opts.Progress != nil {
		fmt.Fprint(s.Err, "\r\033[K")
	}
	if code != 0 || err != nil {
		return &climain.ExitError{Code: code, Err: err}
	}
	return nil
}

// resolveOutput reads -o (and --format, its deprecated spelling) and
// --output-dir. -o takes a format only: anything else is exit status 2
// with the valid list (files go to --output-dir). The zero format is the
// command's default.
func (f *collectFlags) resolveOutput(s Streams) (outputFormat, error) {
	value := f.output
	if f.format != "" {
		fmt.Fprintln(s.Err, "Flag --format has been deprecated, use -o/--output")
		if value != "" && value != f.format {
			return outputFormat{}, fmt.Errorf("-o/--output %q and --format %q disagree", value, f.format)
		}
		value = f.format
	}
	var out outputFormat
	if value != "" {
		var err error
		if out, err = parseOutput(value, true, false); err != nil {
			if ee, ok := errors.AsType[*climain.ExitError](err); ok && !strings.Contains(value, "=") {
				return outputFormat{}, fmt.Errorf("%w (files go to --output-dir DIR)", ee.Err)
			}
			return outputFormat{}, err
		}
	}
	if f.outputDir != "" {
		if out.name != "" && !slices.Contains([]string{"ndjson", "json", "yaml"}, out.name) {
			return outputFormat{}, fmt.Errorf("-o/--output %q: files under --output-dir are ndjson, json or yaml", value)
		}
		f.opts.Output = f.outputDir
	}
	f.opts.Format = out.name
	if out.name != "" && !slices.Contains([]string{"ndjson", "json", "yaml"}, out.name) {
		f.opts.Format = "ndjson" // read back into a table or a template
	}
	return out, nil
}

// isProgressTerminal reports whether progress lines (with ANSI erase) belong
// on w: a terminal that is not TERM=dumb.
func isProgressTerminal(w any) bool {
	ww, ok := w.(interface{ Write([]byte) (int, error) })
	return ok && isTerminal(ww) && os.Getenv("TERM") != "dumb"
}
