package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os/user"
	"strings"
	"time"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
)

// replayFlags are the arguments of kollect replay.
type replayFlags struct {
	natsURL, inventory, sink, at, name string
	revision, from, to                 uint64
	backfill, wait                     bool
	timeout                            time.Duration
}

func newReplayCommand(s Streams, kube *kubeFlags) *cobra.Command {
	f := replayFlags{natsURL: "nats://127.0.0.1:4222", timeout: 30 * time.Minute}
	cmd := &cobra.Command{
		Use:   "replay --inventory NAMESPACE/NAME --sink FAMILY/NAME [--revision N | --at TIME | --backfill [--from N] [--to N]] [--wait]",
		Short: "Deliver retained snapshots of an inventory to one of its sinks again",
		Long: `replay creates a KollectReplay through the kubeconfig: the aggregator delivers one retained
revision of the inventory (--revision, or the latest created at or before --at, RFC 3339; the latest
without either), or with --backfill every retained revision in order (--from/--to bound it), to one
sink binding (FAMILY/NAME, as in status.sinkExports; FAMILY/NAMESPACE/NAME for a cluster inventory,
whose replay is created in the sink's namespace). RBAC and audit are Kubernetes': creating the
KollectReplay needs the edit role of the namespace. --wait follows its status until it succeeds (exit
0) or fails (exit 1). docs/replay.md explains replays and backfills.

--nats-url (deprecated) publishes the snapshot directly on the bus instead, only on the loopback bus
of kollect dev (any other host is refused): it bypasses RBAC and audit, and takes neither --backfill
nor --wait.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("nats-url") {
				return runReplay(cmd.Context(), s, f, cmd.Flags().Changed("revision"))
			}
			return runReplayObject(cmd.Context(), s, kube, f)
		},
	}
	cmd.Flags().StringVar(&f.natsURL, "nats-url", f.natsURL, "deprecated: publish directly on this loopback NATS bus (kollect dev) instead of creating a KollectReplay")
	cmd.Flags().StringVar(&f.inventory, "inventory", "", "inventory NAMESPACE/NAME, or NAME for a cluster inventory")
	cmd.Flags().StringVar(&f.sink, "sink", "", "sink binding FAMILY/NAME (snapshot, database or event; FAMILY/NAMESPACE/NAME for a cluster inventory)")
	cmd.Flags().Uint64Var(&f.revision, "revision", 0, "revision to replay")
	cmd.Flags().StringVar(&f.at, "at", "", "replay the latest snapshot created at or before this RFC 3339 time")
	cmd.Flags().BoolVar(&f.backfill, "backfill", false, "deliver every retained revision, oldest first")
	cmd.Flags().Uint64Var(&f.from, "from", 0, "first revision of a --backfill")
	cmd.Flags().Uint64Var(&f.to, "to", 0, "last revision of a --backfill")
	cmd.Flags().StringVar(&f.name, "name", "", "name of the KollectReplay (default: generated from the inventory's)")
	cmd.Flags().BoolVar(&f.wait, "wait", false, "wait until the replay succeeded or failed")
	cmd.Flags().DurationVar(&f.timeout, "timeout", f.timeout, "how long --wait waits")
	cmd.MarkFlagsMutuallyExclusive("revision", "at", "backfill")
	return cmd
}

// checkReplayFlags validates what both paths share and returns the sink's
// family and the --at time.
func checkReplayFlags(f replayFlags) (busv1.Family, time.Time, error) {
	if f.inventory == "" || f.sink == "" {
		return "", time.Time{}, &climain.ExitError{Code: 2, Err: errors.New("replay: --inventory and --sink are required")}
	}
	family, name, ok := strings.Cut(f.sink, "/")
	if !ok || name == "" || !validFamily(busv1.Family(family)) {
		return "", time.Time{}, &climain.ExitError{Code: 2, Err: fmt.Errorf("replay: --sink %q: want FAMILY/NAME with FAMILY snapshot, database or event", f.sink)}
	}
	if (f.from != 0 || f.to != 0) && !f.backfill {
		return "", time.Time{}, &climain.ExitError{Code: 2, Err: errors.New("replay: --from and --to need --backfill")}
	}
	var at time.Time
	if f.at != "" {
		var err error
		if at, err = time.Parse(time.RFC3339, f.at); err != nil {
			return "", time.Time{}, &climain.ExitError{Code: 2, Err: fmt.Errorf("replay: --at: %w", err)}
		}
	}
	return busv1.Family(family), at, nil
}

// runReplay is the deprecated direct path: publish on the bus.
func runReplay(ctx context.Context, s Streams, f replayFlags, byRevision bool) error {
	fam, at, err := checkReplayFlags(f)
	if err != nil {
		return err
	}
	if f.backfill || f.wait {
		return &climain.ExitError{Code: 2, Err: errors.New("replay: --backfill and --wait need a KollectReplay: drop --nats-url")}
	}
	if err := devBusOnly(f.natsURL); err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	fmt.Fprintln(s.Err, "warning: --nats-url is deprecated: without it, replay creates a KollectReplay (RBAC and audit apply)")
	_, name, _ := strings.Cut(f.sink, "/")
	family := string(fam)
	inv := parseInventory(f.inventory)
	nc, js, err := connectBus(f.natsURL)
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	defer nc.Close()
	b, err := currentBinding(ctx, js, inv, busv1.Family(family), name)
	if err != nil {
		return &climain.ExitError{Code: 1, Err: err}
	}
	ev, err := fetchEvent(ctx, js, inv, f.revision, byRevision, at)
	if err != nil {
		return &climain.ExitError{Code: 1, Err: err}
	}
	if ev.Reason == busv1.ReasonDeleted {
		return &climain.ExitError{Code: 1, Err: fmt.Errorf("replay: revision %d of %s is its deletion; nothing to replay", ev.Revision, inv)}
	}
	ev.Delta, ev.Bindings = nil, []busv1.Binding{b}
	ev.Replay = &busv1.Replay{RequestedAt: time.Now().UTC(), RequestedBy: requester()}
	data, err := json.Marshal(ev)
	if err != nil {
		return &climain.ExitError{Code: 1, Err: err}
	}
	if _, err := js.Publish(ctx, bus.SnapshotSubject(inv), data, jetstream.WithMsgID(bus.ReplayMsgID(*ev))); err != nil {
		return &climain.ExitError{Code: 1, Err: fmt.Errorf("replay: publish: %w", err)}
	}
	fmt.Fprintf(s.Out, "replayed revision %d of %s (checksum %s) to %s\n", ev.Revision, inv, ev.Checksum, b.BindingName())
	return nil
}

// devBusOnly refuses a direct replay on any bus but a loopback one, the bus
// `kollect dev` runs: on a cluster's bus a replay is a KollectReplay, so
// that RBAC (get on the inventory) and the audit log apply.
func devBusOnly(natsURL string) error {
	for u := range strings.SplitSeq(natsURL, ",") {
		parsed, err := url.Parse(strings.TrimSpace(u))
		if err != nil || parsed.Hostname() == "" {
			return fmt.Errorf("replay: --nats-url %q: not a nats:// URL", u)
		}
		h := parsed.Hostname()
		if ip := net.ParseIP(h); h != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return fmt.Errorf("replay: --nats-url reaches %s: the direct path is only for the loopback bus of `kollect dev`; "+
				"drop --nats-url to create a KollectReplay (RBAC and audit apply)", h)
		}
	}
	return nil
}

// fetchEvent returns the event to replay: by revision, at a time, or the
// latest.
func fetchEvent(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName, rev uint64, byRevision bool, at time.Time) (*busv1.SnapshotEvent, error) {
	switch {
	case byRevision:
		ev, _, err := history.Fetch(ctx, js, inv, rev)
		return ev, err
	case !at.IsZero():
		ev, _, err := history.FetchAt(ctx, js, inv, at)
		return ev, err
	}
	st, err := history.Last(ctx, js, inv)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, fmt.Errorf("replay: no snapshot of %s on the bus: %w", inv, history.ErrNotFound)
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
