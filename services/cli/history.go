package cli

import (
	"context"
	"fmt"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/spf13/cobra"
)

func newHistoryCommand(s Streams, kube *kubeFlags) *cobra.Command {
	output, cluster, noHeaders := "table", "", false
	cmd := &cobra.Command{
		Use:   "history (NAMESPACE/NAME | NAME | --cluster-inventory NAME) [-o FORMAT]",
		Short: "List an inventory's revisions through the Kubernetes API",
		Long: `history lists the revisions the bus keeps for an inventory, oldest first: revision, time,
why it was published, item count, rows added, changed and removed since the revision before, and
(-o wide) checksums. It reads query.kollect.dev through the API server with your kubeconfig's
credentials: you see an inventory's history only if you may get that KollectInventory. Periodic
re-exports repeat a revision and are not listed. --cluster-inventory NAME reads the history of a
KollectClusterInventory instead (you need get on it). -o jsonpath=TEMPLATE and
-o custom-columns=HEADER:PATH,... read the revisions as a List of InventoryRevision.`,
		Example: `  # revisions of inventory workloads in namespace shop
  kollect history shop/workloads

  # the same as JSON, one revision per line
  kollect history workloads -n shop -o ndjson

  # revisions of the cluster inventory fleet
  kollect history --cluster-inventory fleet`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHistory(cmd.Context(), s, kube, args, cluster, output, noHeaders)
		},
		ValidArgsFunction: func(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return filterPrefix(kube.qualifiedNames("inventories", ""), prefix), cobra.ShellCompDirectiveNoFileComp
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", output, "output format: "+validFormats(true, false))
	noHeadersFlag(cmd, &noHeaders)
	cmd.Flags().StringVar(&cluster, clusterInventoryFlag, "", "read the history of this KollectClusterInventory (instead of NAMESPACE/NAME)")
	registerCompletions(cmd, kube)
	return cmd
}

func runHistory(ctx context.Context, s Streams, kube *kubeFlags, args []string, cluster, output string, noHeaders bool) error {
	format, err := parseOutput(output, true, false)
	if err != nil {
		return err
	}
	inv, err := historyTarget(kube, args, cluster)
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	h, err := newHistoryAPI(kube, inv)
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	revs, err := h.revisions(ctx)
	if err != nil {
		return &climain.ExitError{Code: 1, Err: err}
	}
	if format.template() {
		items, err := asMaps(revs)
		if err != nil {
			return err
		}
		return printTemplate(s.Out, format, items, false, noHeaders)
	}
	switch output {
	case "ndjson":
		return printNDJSON(s.Out, revs)
	case "json", "yaml":
		return printDoc(s.Out, map[string]any{"apiVersion": "v1", "kind": "List", "items": revs}, output)
	}
	w := newTable(s.Out, noHeaders)
	header := "REVISION\tTIME\tREASON\tITEMS\tADDED\tCHANGED\tREMOVED"
	if output == "wide" {
		header += "\tCHECKSUM\tPREVIOUS"
	}
	fmt.Fprintln(w, header)
	for _, r := range revs {
		fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%d\t%d\t%d", r.Revision, r.Time.UTC().Format("2006-01-02T15:04:05Z"), r.Reason,
			r.ItemCount, r.Added, r.Changed, r.Removed)
		if output == "wide" {
			fmt.Fprintf(w, "\t%s\t%s", r.Checksum, orNone(r.PreviousChecksum, "<none>"))
		}
		fmt.Fprintln(w)
	}
	return w.Flush()
}
