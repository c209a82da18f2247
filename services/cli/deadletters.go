package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// deadLetter is one message of the dead-letter stream, as the command
// prints it.
type deadLetter struct {
	Sequence  uint64               `json:"sequence"`
	Family    busv1.Family         `json:"family"`
	Inventory busv1.NamespacedName `json:"inventory"`
	Letter    busv1.DeadLetter     `json:"deadLetter"`
}

func newDeadLettersCommand(s Streams) *cobra.Command {
	natsURL := "nats://127.0.0.1:4222"
	cmd := &cobra.Command{
		Use:     "deadletters (list | show SEQ | retry SEQ)",
		Aliases: []string{"deadletter", "dl"},
		Short:   "List, show and retry the snapshot events exporters gave up on",
		Long: `deadletters reads the bus's dead-letter stream (` + bus.StreamDeadLetters + `): the snapshot events an
exporter terminated after a permanent failure (ExportRejected, SinkConfigPending, EventUndecodable;
see docs/troubleshooting.md), each with the sink, the revision and the reason. Like snapshots it
reads NATS directly (--nats-url): a kollect dev tool, or for an operator holding bus credentials.
retry publishes that revision to that sink again as the deprecated kollect replay --nats-url does,
on the loopback bus of kollect dev only; on a cluster, kollect replay creates a KollectReplay.`,
	}
	cmd.PersistentFlags().StringVar(&natsURL, "nats-url", natsURL, "NATS server URL of the bus")
	connect := func() (*busConn, error) { return dialBus(natsURL) }

	var output, family string
	var noHeaders bool
	list := &cobra.Command{
		Use:   "list [NAMESPACE/INVENTORY | INVENTORY]",
		Short: "List dead letters, oldest first",
		Example: `  kollect deadletters list --nats-url nats://127.0.0.1:4222
  kollect deadletters list team-a/workloads --family database -o json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			filter, err := deadLetterFilter(family, args)
			if err != nil {
				return &climain.ExitError{Code: 2, Err: err}
			}
			c, err := connect()
			if err != nil {
				return &climain.ExitError{Code: 2, Err: err}
			}
			defer c.close()
			dls, err := listDeadLetters(cmd.Context(), c.js, filter)
			if err != nil {
				return &climain.ExitError{Code: 1, Err: err}
			}
			return printDeadLetters(s.Out, dls, output, noHeaders)
		},
	}
	list.Flags().StringVarP(&output, "output", "o", "table", "table, wide, json, yaml or ndjson")
	noHeadersFlag(list, &noHeaders)
	list.Flags().StringVar(&family, "family", "", "only this sink family: snapshot, database or event")
	_ = list.RegisterFlagCompletionFunc("family", fixedCompletions([]string{"snapshot", "database", "event"}))
	_ = list.RegisterFlagCompletionFunc("output", fixedCompletions(formats))

	show := &cobra.Command{
		Use:     "show SEQ",
		Short:   "Print one dead letter (YAML, or -o json)",
		Example: `  kollect deadletters show 42`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dl, c, err := oneDeadLetter(cmd.Context(), connect, args[0])
			if err != nil {
				return err
			}
			defer c.close()
			format := output
			if format == "table" {
				format = "yaml"
			}
			return printDeadLetters(s.Out, *dl, format, false)
		},
	}
	show.Flags().StringVarP(&output, "output", "o", "yaml", "yaml or json")

	retry := &cobra.Command{
		Use:   "retry SEQ",
		Short: "Re-deliver a dead letter's revision to its sink (as kollect replay)",
		Long: `retry publishes the dead letter's snapshot revision again, addressed to the sink binding that
refused it, marked as a replay (see kollect replay). Fix the cause first (the Secret, the sink's
permissions): a permanent failure fails again. A dead letter that names no sink or revision cannot
be retried; use kollect replay.`,
		Example: `  kollect deadletters retry 42`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dl, c, err := oneDeadLetter(cmd.Context(), connect, args[0])
			if err != nil {
				return err
			}
			c.close()
			if dl.Letter.Sink == nil || dl.Letter.Revision == 0 {
				return &climain.ExitError{Code: 1, Err: fmt.Errorf("dead letter %d names no sink or revision; use kollect replay --inventory %s --sink FAMILY/NAME", dl.Sequence, dl.Inventory)}
			}
			return runReplay(cmd.Context(), s, replayFlags{natsURL: natsURL, inventory: inventoryArg(dl.Inventory),
				sink: string(dl.Letter.Sink.Family) + "/" + dl.Letter.Sink.Name, revision: dl.Letter.Revision}, true)
		},
	}
	cmd.AddCommand(list, show, retry)
	return cmd
}

// busConn is an open bus connection.
type busConn struct {
	js    jetstream.JetStream
	close func()
}

func dialBus(url string) (*busConn, error) {
	nc, js, err := connectBus(url)
	if err != nil {
		return nil, err
	}
	return &busConn{js: js, close: nc.Close}, nil
}

func inventoryArg(inv busv1.NamespacedName) string {
	if inv.Namespace == "" {
		return inv.Name
	}
	return inv.Namespace + "/" + inv.Name
}

// deadLetterFilter is the subject filter of --family and an inventory.
func deadLetterFilter(family string, args []string) (string, error) {
	if family != "" && !validFamily(busv1.Family(family)) {
		return "", fmt.Errorf("--family %q: must be snapshot, database or event", family)
	}
	if len(args) == 0 {
		if family == "" {
			return bus.DeadLetterSubjects, nil
		}
		return strings.TrimSuffix(bus.DeadLetterSubjects, ">") + family + ".>", nil
	}
	subject := bus.DeadLetterSubject("*", parseInventory(args[0]))
	if family != "" {
		subject = bus.DeadLetterSubject(busv1.Family(family), parseInventory(args[0]))
	}
	return subject, nil
}

func oneDeadLetter(ctx context.Context, connect func() (*busConn, error), arg string) (*deadLetter, *busConn, error) {
	seq, err := strconv.ParseUint(arg, 10, 64)
	if err != nil || seq == 0 {
		return nil, nil, &climain.ExitError{Code: 2, Err: fmt.Errorf("SEQ %q: want the sequence number deadletters list prints", arg)}
	}
	c, err := connect()
	if err != nil {
		return nil, nil, &climain.ExitError{Code: 2, Err: err}
	}
	st, err := c.js.Stream(ctx, bus.StreamDeadLetters)
	if err != nil {
		c.close()
		return nil, nil, &climain.ExitError{Code: 1, Err: fmt.Errorf("open %s: %w", bus.StreamDeadLetters, err)}
	}
	m, err := st.GetMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		c.close()
		return nil, nil, &climain.ExitError{Code: 1, Err: fmt.Errorf("dead letter %d not found (evicted, or never written)", seq)}
	} else if err != nil {
		c.close()
		return nil, nil, &climain.ExitError{Code: 1, Err: fmt.Errorf("get dead letter %d: %w", seq, err)}
	}
	dl, err := decodeDeadLetter(m.Subject, m.Sequence, m.Data)
	if err != nil {
		c.close()
		return nil, nil, &climain.ExitError{Code: 1, Err: err}
	}
	return dl, c, nil
}

func decodeDeadLetter(subject string, seq uint64, data []byte) (*deadLetter, error) {
	fam, inv, err := bus.ParseDeadLetterSubject(subject)
	if err != nil {
		return nil, fmt.Errorf("dead letter %d: %w", seq, err)
	}
	dl := &deadLetter{Sequence: seq, Family: fam, Inventory: inv}
	if err := json.Unmarshal(data, &dl.Letter); err != nil {
		return nil, fmt.Errorf("decode dead letter %d: %w", seq, err)
	}
	return dl, nil
}

// listDeadLetters reads every dead letter on filter, oldest first.
func listDeadLetters(ctx context.Context, js jetstream.JetStream, filter string) ([]deadLetter, error) {
	c, err := js.OrderedConsumer(ctx, bus.StreamDeadLetters, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{filter}, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", bus.StreamDeadLetters, err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", bus.StreamDeadLetters, err)
	}
	var out []deadLetter
	for pending := info.NumPending; pending > 0; {
		m, err := c.Next(jetstream.FetchContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", bus.StreamDeadLetters, err)
		}
		md, err := m.Metadata()
		if err != nil {
			return nil, err
		}
		dl, err := decodeDeadLetter(m.Subject(), md.Sequence.Stream, m.Data())
		if err != nil {
			return nil, err
		}
		out = append(out, *dl)
		pending = md.NumPending
	}
	return out, nil
}

// printDeadLetters prints v, one deadLetter (show) or a list of them.
func printDeadLetters(out io.Writer, v any, format string, noHeaders bool) error {
	dls, _ := v.([]deadLetter)
	if one, ok := v.(deadLetter); ok {
		dls = []deadLetter{one}
	} else if dls == nil {
		v = []deadLetter{} // [] rather than null
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
			if d.Letter.Sink != nil {
				sink = string(d.Letter.Sink.Family) + "/" + d.Letter.Sink.Name
			}
			line := fmt.Sprintf("%d\t%s\t%s\t%s\t%d\t%s", d.Sequence, d.Letter.Time.UTC().Format(time.RFC3339),
				inventoryArg(d.Inventory), sink, d.Letter.Revision, orNone(d.Letter.Reason, "<none>"))
			if format == "wide" {
				line += "\t" + orNone(d.Letter.Message, "<none>")
			}
			fmt.Fprintln(w, line)
		}
		return w.Flush()
	case "ndjson":
		return printNDJSON(out, dls)
	case "json", "yaml":
		return printDoc(out, v, format)
	}
	return &climain.ExitError{Code: 2, Err: fmt.Errorf("-o/--output %q: must be one of %s", format, formatList)}
}
