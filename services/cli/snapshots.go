package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/spf13/cobra"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/history"
)

// snapshotEntry is one snapshot event as -o json, yaml and ndjson print it.
type snapshotEntry struct {
	Inventory busv1.NamespacedName `json:"inventory"`
	Sequence  uint64               `json:"sequence"`
	Revision  uint64               `json:"revision"`
	Time      time.Time            `json:"time"`
	ItemCount int                  `json:"itemCount"`
	Checksum  string               `json:"checksum"`
	Reason    busv1.SnapshotReason `json:"reason"`
}

func newSnapshotsCommand(s Streams) *cobra.Command {
	natsURL := "nats://127.0.0.1:4222"
	output, noHeaders := "table", false
	cmd := &cobra.Command{
		Use:   "snapshots NAMESPACE/NAME | NAME",
		Short: "List the snapshot events on the bus for an inventory (kollect dev tool; use kollect history)",
		Long: `snapshots lists the snapshot events kept on the bus for one inventory, oldest first:
revision, creation time, item count, checksum and why it was published. A cluster inventory is
named without a namespace. -o json, yaml and ndjson print the same fields (and the event's stream
sequence) for programs.

It reads the bus directly (--nats-url), which only a development bus (kollect dev) or an
operator with bus credentials has. In a cluster use kollect history, which reads the same history
through the Kubernetes API with your own credentials and RBAC.`,
		Example: `  kollect snapshots team-a/workloads
  kollect snapshots team-a/workloads -o json | jq '.[-1].checksum'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := parseOutput(output, false, false); err != nil {
				return err
			}
			inv := parseInventory(args[0])
			nc, js, err := connectBus(natsURL)
			if err != nil {
				return &climain.ExitError{Code: 2, Err: err}
			}
			defer nc.Close()
			entries, err := history.List(cmd.Context(), js, inv)
			if err != nil {
				return &climain.ExitError{Code: 1, Err: err}
			}
			return printSnapshots(s.Out, inv, entries, output, noHeaders)
		},
	}
	cmd.Flags().StringVar(&natsURL, "nats-url", natsURL, "NATS server URL of the bus")
	cmd.Flags().StringVarP(&output, "output", "o", output, "table, wide, json, yaml or ndjson")
	noHeadersFlag(cmd, &noHeaders)
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletions(formats))
	return cmd
}

// printSnapshots writes entries in format: a table (wide adds the
// sequence), a JSON or YAML list, or one JSON object per line.
func printSnapshots(out io.Writer, inv busv1.NamespacedName, entries []history.Entry, format string, noHeaders bool) error {
	list := make([]snapshotEntry, 0, len(entries))
	for _, e := range entries {
		list = append(list, snapshotEntry{Inventory: inv, Sequence: e.Sequence, Revision: e.Revision, Time: e.Time.UTC(),
			ItemCount: e.ItemCount, Checksum: e.Checksum, Reason: e.Reason})
	}
	switch format {
	case "ndjson":
		return printNDJSON(out, list)
	case "json", "yaml":
		return printDoc(out, list, format)
	}
	w := newTable(out, noHeaders)
	header := "REVISION\tTIME\tITEMS\tCHECKSUM\tREASON"
	if format == "wide" {
		header += "\tSEQUENCE"
	}
	fmt.Fprintln(w, header)
	for _, e := range list {
		line := fmt.Sprintf("%d\t%s\t%d\t%s\t%s", e.Revision, e.Time.Format(time.RFC3339), e.ItemCount, e.Checksum, e.Reason)
		if format == "wide" {
			line += fmt.Sprintf("\t%d", e.Sequence)
		}
		fmt.Fprintln(w, line)
	}
	return w.Flush()
}

// parseInventory reads NAMESPACE/NAME, or NAME for a cluster inventory.
func parseInventory(s string) busv1.NamespacedName {
	if ns, name, ok := strings.Cut(s, "/"); ok {
		return busv1.NamespacedName{Namespace: ns, Name: name}
	}
	return busv1.NamespacedName{Name: s}
}
