package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/user"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/replay"
)

// replayFlags are the arguments of kollect replay.
type replayFlags struct {
	natsURL, inventory, sink, at string
	revision                     uint64
}

func newReplayCommand(s Streams) *cobra.Command {
	f := replayFlags{natsURL: "nats://127.0.0.1:4222"}
	cmd := &cobra.Command{
		Use:   "replay --inventory NAMESPACE/NAME --sink FAMILY/NAME [--revision N | --at TIME]",
		Short: "Re-deliver a snapshot from the bus's history to one sink (kollect dev tool)",
		Long: `replay fetches one snapshot event of an inventory from the bus's history (by revision, or the
latest created at or before a time, RFC 3339) and publishes it again, marked as a replay, without
its delta and addressed to one sink binding of the inventory (FAMILY/NAME, as in status.sinkExports).
The family's exporter writes it even though it is older than what the sink holds; the next change or
periodic re-export of the inventory writes the newest snapshot again. Without --revision or --at
the latest snapshot is replayed.

It publishes on the bus directly (--nats-url), which only a development bus (kollect dev) or an
operator with bus credentials can do; reading history in a cluster goes through the Kubernetes
API (kollect history, kollect diff, kollect get inventory --at).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReplay(cmd.Context(), s, f, cmd.Flags().Changed("revision"))
		},
	}
	cmd.Flags().StringVar(&f.natsURL, "nats-url", f.natsURL, "NATS server URL of the bus")
	cmd.Flags().StringVar(&f.inventory, "inventory", "", "inventory NAMESPACE/NAME, or NAME for a cluster inventory")
	cmd.Flags().StringVar(&f.sink, "sink", "", "sink binding FAMILY/NAME (snapshot, database or event)")
	cmd.Flags().Uint64Var(&f.revision, "revision", 0, "revision to replay")
	cmd.Flags().StringVar(&f.at, "at", "", "replay the latest snapshot created at or before this RFC 3339 time")
	cmd.MarkFlagsMutuallyExclusive("revision", "at")
	return cmd
}

func runReplay(ctx context.Context, s Streams, f replayFlags, byRevision bool) error {
	if f.inventory == "" || f.sink == "" {
		return &ExitError{Code: 2, Err: errors.New("replay: --inventory and --sink are required")}
	}
	family, name, ok := strings.Cut(f.sink, "/")
	if !ok || name == "" || !validFamily(busv1.Family(family)) {
		return &ExitError{Code: 2, Err: fmt.Errorf("replay: --sink %q: want FAMILY/NAME with FAMILY snapshot, database or event", f.sink)}
	}
	var at time.Time
	if f.at != "" {
		var err error
		if at, err = time.Parse(time.RFC3339, f.at); err != nil {
			return &ExitError{Code: 2, Err: fmt.Errorf("replay: --at: %w", err)}
		}
	}
	inv := parseInventory(f.inventory)
	nc, js, err := bus.Connect(f.natsURL, "cli")
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	defer nc.Close()
	b, err := currentBinding(ctx, js, inv, busv1.Family(family), name)
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	ev, err := fetchEvent(ctx, js, inv, f.revision, byRevision, at)
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	if ev.Reason == busv1.ReasonDeleted {
		return &ExitError{Code: 1, Err: fmt.Errorf("replay: revision %d of %s is its deletion; nothing to replay", ev.Revision, inv)}
	}
	ev.Delta, ev.Bindings = nil, []busv1.Binding{b}
	ev.Replay = &busv1.Replay{RequestedAt: time.Now().UTC(), RequestedBy: requester()}
	data, err := json.Marshal(ev)
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	if _, err := js.Publish(ctx, bus.SnapshotSubject(inv), data, jetstream.WithMsgID(bus.ReplayMsgID(*ev))); err != nil {
		return &ExitError{Code: 1, Err: fmt.Errorf("replay: publish: %w", err)}
	}
	fmt.Fprintf(s.Out, "replayed revision %d of %s (checksum %s) to %s\n", ev.Revision, inv, ev.Checksum, b.BindingName())
	return nil
}

// fetchEvent returns the event to replay: by revision, at a time, or the
// latest.
func fetchEvent(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName, rev uint64, byRevision bool, at time.Time) (*busv1.SnapshotEvent, error) {
	switch {
	case byRevision:
		ev, _, err := replay.Fetch(ctx, js, inv, rev)
		return ev, err
	case !at.IsZero():
		ev, _, err := replay.FetchAt(ctx, js, inv, at)
		return ev, err
	}
	st, err := replay.Last(ctx, js, inv)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, fmt.Errorf("replay: no snapshot of %s on the bus: %w", inv, replay.ErrNotFound)
	}
	return &st.Event, nil
}

// currentBinding returns the binding of inv's current compiled config to
// the sink family/name: exporters deliver only to bindings their config
// lists, at the sink generation it names.
func currentBinding(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName, family busv1.Family, name string) (busv1.Binding, error) {
	kv, err := js.KeyValue(ctx, bus.BucketConfig)
	if err != nil {
		return busv1.Binding{}, fmt.Errorf("replay: open config bucket: %w", err)
	}
	kind := busv1.KindInventory
	if inv.Namespace == "" {
		kind = busv1.KindClusterInventory
	}
	e, err := kv.Get(ctx, bus.ConfigKey(bus.ConfigRef{Kind: kind, Namespace: inv.Namespace, Name: inv.Name}))
	if err != nil {
		return busv1.Binding{}, fmt.Errorf("replay: config of %s: %w", inv, err)
	}
	var ic busv1.InventoryConfig
	if err := json.Unmarshal(e.Value(), &ic); err != nil {
		return busv1.Binding{}, fmt.Errorf("replay: decode config of %s: %w", inv, err)
	}
	for _, b := range ic.Bindings {
		if b.Family == family && b.Name == name {
			return b, nil
		}
	}
	return busv1.Binding{}, fmt.Errorf("replay: %s is not bound to sink %s/%s", inv, family, name)
}

func validFamily(f busv1.Family) bool {
	for _, g := range busv1.Families() {
		if f == g {
			return true
		}
	}
	return false
}

// requester names the local user, for the replay's record.
func requester() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}
