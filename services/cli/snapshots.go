package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/replay"
)

func newSnapshotsCommand(s Streams) *cobra.Command {
	natsURL := "nats://127.0.0.1:4222"
	cmd := &cobra.Command{
		Use:   "snapshots NAMESPACE/NAME | NAME",
		Short: "List the snapshot events on the bus for an inventory (kollect dev tool; use kollect history)",
		Long: `snapshots lists the snapshot events kept on the bus for one inventory, oldest first:
revision, creation time, item count, checksum and why it was published. A cluster inventory is
named without a namespace.

It reads the bus directly (--nats-url), which only a development bus (kollect dev) or an
operator with bus credentials has. In a cluster use kollect history, which reads the same history
through the Kubernetes API with your own credentials and RBAC.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			inv := parseInventory(args[0])
			nc, js, err := bus.Connect(natsURL, "cli")
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			defer nc.Close()
			entries, err := replay.List(cmd.Context(), js, inv)
			if err != nil {
				return &ExitError{Code: 1, Err: err}
			}
			w := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "REVISION\tTIME\tITEMS\tCHECKSUM\tREASON")
			for _, e := range entries {
				fmt.Fprintf(w, "%d\t%s\t%d\t%s\t%s\n", e.Revision, e.Time.UTC().Format(time.RFC3339), e.ItemCount, e.Checksum, e.Reason)
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVar(&natsURL, "nats-url", natsURL, "NATS server URL of the bus")
	return cmd
}

// parseInventory reads NAMESPACE/NAME, or NAME for a cluster inventory.
func parseInventory(s string) busv1.NamespacedName {
	if ns, name, ok := strings.Cut(s, "/"); ok {
		return busv1.NamespacedName{Namespace: ns, Name: name}
	}
	return busv1.NamespacedName{Name: s}
}
