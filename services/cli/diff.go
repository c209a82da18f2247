package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/spf13/cobra"

	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
)

type diffFlags struct {
	from, to, output, cluster string
	noHeaders                 bool
}

func newDiffCommand(s Streams, kube *kubeFlags) *cobra.Command {
	f := diffFlags{output: "table"}
	cmd := &cobra.Command{
		Use:   "diff (NAMESPACE/NAME | NAME | --cluster-inventory NAME) [--from REV|TIME] [--to REV|TIME] [-o table|wide|json|yaml|ndjson]",
		Short: "Show what changed in an inventory between two revisions or times",
		Long: `diff compares two revisions of an inventory row by row: rows added, rows removed, and rows
changed with the attributes that differ (before -> after). --from and --to take a revision number
or an RFC 3339 time (the revision current then); --to defaults to the latest revision, --from to
the revision before --to. It reads query.kollect.dev through the API server with your
kubeconfig's credentials: you need get on the KollectInventory. --cluster-inventory NAME compares
revisions of a KollectClusterInventory instead (you need get on it).`,
		Example: `  # what changed between revisions 12 and 15
  kollect diff shop/workloads --from 12 --to 15

  # what changed since Monday, as JSON
  kollect diff shop/workloads --from 2026-01-05T00:00:00Z -o json

  # what changed in the cluster inventory fleet since its previous revision
  kollect diff --cluster-inventory fleet`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(cmd.Context(), s, kube, args, f)
		},
		ValidArgsFunction: func(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return filterPrefix(kube.qualifiedNames("inventories", ""), prefix), cobra.ShellCompDirectiveNoFileComp
		},
	}
	cmd.Flags().StringVar(&f.from, "from", "", "earlier revision, or RFC 3339 time (default: the revision before --to)")
	cmd.Flags().StringVar(&f.to, "to", "", "later revision, or RFC 3339 time (default: the latest)")
	cmd.Flags().StringVarP(&f.output, "output", "o", f.output, "output format: "+formatList)
	noHeadersFlag(cmd, &f.noHeaders)
	cmd.Flags().StringVar(&f.cluster, clusterInventoryFlag, "", "compare revisions of this KollectClusterInventory (instead of NAMESPACE/NAME)")
	registerCompletions(cmd, kube)
	return cmd
}

func runDiff(ctx context.Context, s Streams, kube *kubeFlags, args []string, f diffFlags) error {
	if _, err := parseOutput(f.output, false, false); err != nil {
		return err
	}
	q := url.Values{}
	for _, p := range []struct{ flag, name, v string }{{"--from", "from", f.from}, {"--to", "to", f.to}} {
		if p.v == "" {
			continue
		}
		if err := revisionOrTime(p.flag, p.v); err != nil {
			return &climain.ExitError{Code: 2, Err: err}
		}
		q.Set(p.name, p.v)
	}
	inv, err := historyTarget(kube, args, f.cluster)
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	h, err := newHistoryAPI(kube, inv)
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	d, err := h.diff(ctx, q)
	if err != nil {
		return &climain.ExitError{Code: 1, Err: err}
	}
	switch f.output {
	case "ndjson":
		return printNDJSON(s.Out, d.Items)
	case "json", "yaml":
		return printDoc(s.Out, d, f.output)
	}
	fmt.Fprintf(s.Err, "%s: revision %d (%s) -> %d (%s)\n", h.what(), d.From.Revision, d.From.Time.UTC().Format("2006-01-02T15:04:05Z"),
		d.To.Revision, d.To.Time.UTC().Format("2006-01-02T15:04:05Z"))
	if len(d.Items) == 0 {
		fmt.Fprintln(s.Err, "No changes.")
		return nil
	}
	return printChanges(s, d.Items, f.output == "wide", f.noHeaders)
}

// printChanges prints one line per row change: what, which object, and
// the attributes that differ.
func printChanges(s Streams, items []queryv1.RowChange, wide, noHeaders bool) error {
	w := newTable(s.Out, noHeaders)
	header := "CHANGE\tNAMESPACE\tKIND\tNAME\tATTRIBUTES"
	if wide {
		header = "CHANGE\tTARGET\tNAMESPACE\tKIND\tNAME\tUID\tATTRIBUTES"
	}
	fmt.Fprintln(w, header)
	for _, c := range items {
		r := c.After
		if r == nil {
			r = c.Before
		}
		if r == nil {
			return errors.New("diff: a change without a row")
		}
		var attrs []string
		for _, a := range c.Attributes {
			attrs = append(attrs, fmt.Sprintf("%s: %s -> %s", a.Name, cell(a.Before, a.Before != nil), cell(a.After, a.After != nil)))
		}
		cells := []string{c.Change, orNone(r.Namespace, "<none>"), r.Kind, r.Name, strings.Join(attrs, ", ")}
		if wide {
			cells = []string{c.Change, r.TargetNamespace + "/" + r.TargetName, orNone(r.Namespace, "<none>"), r.Kind, r.Name, r.UID, strings.Join(attrs, ", ")}
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	return w.Flush()
}
