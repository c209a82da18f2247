package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/spf13/cobra"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
)

func newDeadLettersCommand(s Streams, kube *kubeFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "deadletters (list | show SEQ | retry SEQ)",
		Aliases: []string{"deadletter", "dl"},
		Short:   "List, show and retry the snapshot events exporters gave up on",
		Long: `deadletters reads the dead letters of the inventories you may get: the snapshot events an exporter
terminated after a permanent failure (ExportRejected, SinkConfigPending, EventUndecodable; see
docs/troubleshooting.md), each with the sink, the revision and the reason. It reads them through the
Kubernetes API server with the kubeconfig's credentials (query.kollect.dev's deadletters, served by
the chart's query service; under kollect dev, from the one it runs on this machine): RBAC applies,
and no NATS connection or bus credentials are needed. retry creates a KollectReplay of the dead
letter's revision to its sink, as kollect replay does, so RBAC and the API server's audit log cover
it.`,
	}
	var (
		output, family, cluster string
		all, noHeaders          bool
	)
	list := &cobra.Command{
		Use:   "list [NAMESPACE/INVENTORY | INVENTORY]",
		Short: "List dead letters, oldest first",
		Long: `list prints the dead letters of the namespace's inventories (-n, or the context's namespace), of one
inventory (NAMESPACE/INVENTORY, or INVENTORY in -n's namespace), of every namespace and the cluster
inventories (-A), or of the cluster inventories (--cluster-inventory NAME, or '*' for all of them).
Only the dead letters of inventories you may get are listed.`,
		Example: `  kollect deadletters list -n team-a
  kollect deadletters list team-a/workloads --family database -o json
  kollect deadletters list -A -o wide`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sc, err := deadLetterListScope(kube, args, family, cluster, all)
			if err != nil {
				return &climain.ExitError{Code: 2, Err: err}
			}
			api, err := newDeadLetterAPI(kube)
			if err != nil {
				return &climain.ExitError{Code: 2, Err: err}
			}
			dls, err := api.list(cmd.Context(), sc)
			if err != nil {
				return &climain.ExitError{Code: 1, Err: err}
			}
			return printDeadLetters(s.Out, dls, output, false, noHeaders)
		},
	}
	list.Flags().StringVarP(&output, "output", "o", "table", "table, wide, json, yaml or ndjson")
	noHeadersFlag(list, &noHeaders)
	list.Flags().StringVar(&family, "family", "", "only this sink family: snapshot, database or event")
	list.Flags().BoolVarP(&all, "all-namespaces", "A", false, "every namespace's inventories, and the cluster inventories")
	list.Flags().StringVar(&cluster, clusterInventoryFlag, "", "a KollectClusterInventory's dead letters ('*': every cluster inventory's)")
	_ = list.RegisterFlagCompletionFunc("family", fixedCompletions([]string{"snapshot", "database", "event"}))
	_ = list.RegisterFlagCompletionFunc("output", fixedCompletions(formats))

	show := &cobra.Command{
		Use:   "show [NAMESPACE/]SEQ",
		Short: "Print one dead letter (YAML, or -o json)",
		Long: `show prints the dead letter SEQ (the sequence list prints) of an inventory of NAMESPACE (-n, or the
context's namespace), or of a cluster inventory.`,
		Example: `  kollect deadletters show 42 -n team-a
  kollect deadletters show team-a/42 -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dl, err := oneDeadLetter(cmd, kube, args[0])
			if err != nil {
				return err
			}
			format := output
			if format == "table" {
				format = "yaml"
			}
			return printDeadLetters(s.Out, []queryv1.DeadLetter{*dl}, format, true, false)
		},
	}
	show.Flags().StringVarP(&output, "output", "o", "yaml", "yaml or json")

	f := replayFlags{timeout: 30 * time.Minute}
	retry := &cobra.Command{
		Use:   "retry [NAMESPACE/]SEQ [--wait]",
		Short: "Re-deliver a dead letter's revision to its sink (a KollectReplay)",
		Long: `retry creates a KollectReplay of the dead letter's inventory, sink and revision, exactly as
kollect replay --inventory NAMESPACE/NAME --sink FAMILY/NAME --revision N does: creating it needs
the edit role of the namespace (a cluster inventory's replay is created in the sink's namespace),
and the API server's audit log records who asked. --wait follows its status until it succeeds (exit
0) or fails (exit 1). Fix the cause first (the Secret, the sink's permissions): a permanent failure
fails again. A dead letter that names no sink or revision cannot be retried; use kollect replay.`,
		Example: `  kollect deadletters retry 42 -n team-a --wait`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dl, err := oneDeadLetter(cmd, kube, args[0])
			if err != nil {
				return err
			}
			inv := deadLetterInventory(dl)
			if dl.Sink == nil || dl.Revision == 0 {
				return &climain.ExitError{Code: 1, Err: fmt.Errorf("dead letter %d names no sink or revision; use kollect replay --inventory %s --sink FAMILY/NAME",
					dl.Sequence, inventoryArg(inv))}
			}
			r := f
			r.inventory, r.sink, r.revision = inventoryArg(inv), dl.Sink.BindingName(), dl.Revision
			if inv.Namespace == "" {
				r.sink = string(dl.Sink.Family) + "/" + dl.Sink.Namespace + "/" + dl.Sink.Name
			}
			return runReplayObject(cmd.Context(), s, kube, r)
		},
	}
	retry.Flags().StringVar(&f.name, "name", "", "name of the KollectReplay (default: generated from the inventory's)")
	retry.Flags().BoolVar(&f.wait, "wait", false, "wait until the replay succeeded or failed")
	retry.Flags().DurationVar(&f.timeout, "timeout", f.timeout, "how long --wait waits")
	cmd.AddCommand(list, show, retry)
	return cmd
}

// deadLetterListScope resolves list's arguments and flags.
func deadLetterListScope(kube *kubeFlags, args []string, family, cluster string, all bool) (deadLetterScope, error) {
	sc := deadLetterScope{family: family, all: all}
	if family != "" && !validFamily(busv1.Family(family)) {
		return sc, fmt.Errorf("--family %q: must be snapshot, database or event", family)
	}
	ns, explicit, err := kube.namespace()
	if err != nil {
		return sc, err
	}
	switch {
	case all && (explicit || cluster != ""):
		return sc, errors.New("-A/--all-namespaces excludes -n/--namespace and --" + clusterInventoryFlag)
	case cluster != "" && len(args) > 0:
		return sc, fmt.Errorf("--%s %q and the inventory %q: name one", clusterInventoryFlag, cluster, args[0])
	case cluster != "":
		if strings.Contains(cluster, "/") {
			return sc, fmt.Errorf("--%s %q: a cluster inventory's name has no namespace", clusterInventoryFlag, cluster)
		}
		sc.cluster = true
		if cluster != "*" {
			sc.inventory = cluster
		}
		return sc, nil
	case all && len(args) > 0:
		return sc, errors.New("-A/--all-namespaces lists every inventory's: name no inventory")
	case len(args) > 0:
		if n, name, ok := strings.Cut(args[0], "/"); ok {
			ns, sc.inventory = n, name
		} else {
			sc.inventory = args[0]
		}
		if ns == "" || sc.inventory == "" {
			return sc, fmt.Errorf("inventory %q: want NAMESPACE/NAME or NAME (a cluster inventory: --%s NAME)", args[0], clusterInventoryFlag)
		}
	}
	sc.namespace = ns
	return sc, nil
}

// oneDeadLetter reads the dead letter [NAMESPACE/]SEQ names.
func oneDeadLetter(cmd *cobra.Command, kube *kubeFlags, arg string) (*queryv1.DeadLetter, error) {
	ns, seqArg, ok := strings.Cut(arg, "/")
	if !ok {
		seqArg = arg
		var err error
		if ns, _, err = kube.namespace(); err != nil {
			return nil, &climain.ExitError{Code: 2, Err: err}
		}
	}
	seq, err := strconv.ParseUint(seqArg, 10, 64)
	if err != nil || seq == 0 || ns == "" {
		return nil, &climain.ExitError{Code: 2, Err: fmt.Errorf("%q: want SEQ or NAMESPACE/SEQ, SEQ the sequence deadletters list prints", arg)}
	}
	api, err := newDeadLetterAPI(kube)
	if err != nil {
		return nil, &climain.ExitError{Code: 2, Err: err}
	}
	dl, err := api.one(cmd.Context(), ns, seq)
	if err != nil {
		return nil, &climain.ExitError{Code: 1, Err: err}
	}
	return dl, nil
}

func deadLetterInventory(d *queryv1.DeadLetter) busv1.NamespacedName {
	return busv1.NamespacedName{Namespace: d.Namespace, Name: d.Inventory}
}

func inventoryArg(inv busv1.NamespacedName) string {
	if inv.Namespace == "" {
		return inv.Name
	}
	return inv.Namespace + "/" + inv.Name
}

// printDeadLetters prints dls; one prints a single object (show) rather
// than a list.
func printDeadLetters(out io.Writer, dls []queryv1.DeadLetter, format string, one, noHeaders bool) error {
	for i := range dls {
		dls[i].APIVersion, dls[i].Kind = queryv1.GroupVersion.String(), "DeadLetter"
		if dls[i].Namespace == "" {
			dls[i].Kind = "ClusterDeadLetter"
		}
	}
	switch format {
	case "table", "wide":
		w := newTable(out, noHeaders)
		header := "SEQ\tTIME\tINVENTORY\tSINK\tREVISION\tREASON"
		if format == "wide" {
			header += "\tMESSAGE"
		}
		fmt.Fprintln(w, header)
		for _, d := range dls {
			sink := string(d.Family) + "/<any>"
			if d.Sink != nil {
				sink = d.Sink.BindingName()
			}
			line := fmt.Sprintf("%d\t%s\t%s\t%s\t%d\t%s", d.Sequence, d.Time.UTC().Format(time.RFC3339),
				inventoryArg(deadLetterInventory(&d)), sink, d.Revision, orNone(d.Reason, "<none>"))
			if format == "wide" {
				line += "\t" + orNone(d.Message, "<none>")
			}
			fmt.Fprintln(w, line)
		}
		return w.Flush()
	case "ndjson":
		return printNDJSON(out, dls)
	case "json", "yaml":
		if one && len(dls) == 1 {
			return printDoc(out, &dls[0], format)
		}
		return printDoc(out, dls, format)
	}
	return &climain.ExitError{Code: 2, Err: fmt.Errorf("-o/--output %q: must be one of %s", format, formatList)}
}
