package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/testenv"
)

func TestReplayRejectsBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"replay", "--sink", "snapshot/git"},
		{"replay", "--inventory", "team-a/inv"},
		{"replay", "--inventory", "team-a/inv", "--sink", "git"},
		{"replay", "--inventory", "team-a/inv", "--sink", "files/git"},
		{"replay", "--inventory", "team-a/inv", "--sink", "snapshot/git", "--at", "yesterday"},
		{"replay", "--inventory", "team-a/inv", "--sink", "snapshot/git", "--revision", "1", "--at", "2026-01-01T00:00:00Z"},
		{"replay", "extra", "--inventory", "team-a/inv", "--sink", "snapshot/git"},
	} {
		var out, errOut bytes.Buffer
		if code := Main(context.Background(), args, Streams{Out: &out, Err: &errOut}); code != 2 || errOut.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with a message", args, code, errOut.String())
		}
	}
}

func TestReplayPublishesAnOldRevisionToOneBinding(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx := context.Background()
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "inv"}
	git := busv1.Binding{SinkRef: busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-a", Name: "git"}, SinkGeneration: 3}
	pg := busv1.Binding{SinkRef: busv1.SinkRef{Family: busv1.FamilyDatabase, Namespace: "team-a", Name: "pg"}, SinkGeneration: 1}
	kv, err := n.JS.KeyValue(ctx, bus.BucketConfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name, Generation: 2,
		Bindings: []busv1.Binding{git, pg}})
	if _, err := kv.Put(ctx, bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name}), cfg); err != nil {
		t.Fatal(err)
	}
	for rev := uint64(1); rev <= 2; rev++ {
		env := busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Inventory: inv, Revision: rev, Checksum: "sum" + string(rune('0'+rev)), Items: []busv1.Row{}}
		b, _ := json.Marshal(busv1.SnapshotEvent{Inventory: inv, Revision: rev, Checksum: env.Checksum, Reason: busv1.ReasonChange,
			CreatedAt: time.Date(2026, 1, 1, 0, int(rev), 0, 0, time.UTC), Envelope: &env, Delta: &busv1.Delta{BaseRevision: rev - 1},
			Bindings: []busv1.Binding{git, pg}})
		if _, err := n.JS.Publish(ctx, bus.SnapshotSubject(inv), b); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := Main(ctx, append([]string{"replay", "--inventory", "team-a/inv", "--nats-url", n.URL}, args...), Streams{Out: &out, Err: &errOut})
		return code, out.String() + errOut.String()
	}
	for _, remote := range []string{"nats://nats.kollect-system.svc:4222", "nats://10.0.0.7:4222", "nats://127.0.0.1:4222,nats://10.0.0.8:4222"} {
		var out, errOut bytes.Buffer
		code := Main(ctx, []string{"replay", "--inventory", "team-a/inv", "--nats-url", remote, "--sink", "snapshot/git"}, Streams{Out: &out, Err: &errOut})
		if code != 2 || !strings.Contains(errOut.String(), "only for the loopback bus of `kollect dev`") {
			t.Errorf("--nats-url %s: exit %d, %q; want a refusal of a bus other than kollect dev's", remote, code, errOut.String())
		}
	}
	if code, out := run("--sink", "snapshot/s3"); code != 1 || !strings.Contains(out, "not bound") {
		t.Fatalf("unbound sink: exit %d: %s", code, out)
	}
	if code, out := run("--sink", "snapshot/git", "--revision", "9"); code != 1 {
		t.Fatalf("missing revision: exit %d: %s", code, out)
	}
	for _, args := range [][]string{{"--revision", "1"}, {"--at", "2026-01-01T00:01:30Z"}} {
		if code, out := run(append([]string{"--sink", "snapshot/git"}, args...)...); code != 0 || !strings.Contains(out, "revision 1") {
			t.Fatalf("%v: exit %d: %s", args, code, out)
		}
	}
	evs, err := history.Events(ctx, n.JS, inv)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 4 {
		t.Fatalf("%d events on the subject, want 2 originals and 2 replays (distinct message ids)", len(evs))
	}
	for _, s := range evs[2:] {
		ev := s.Event
		if ev.Revision != 1 || ev.Replay == nil || ev.Replay.RequestedAt.IsZero() || ev.Delta != nil ||
			len(ev.Bindings) != 1 || ev.Bindings[0] != git || ev.Envelope == nil || ev.Envelope.Revision != 1 {
			t.Fatalf("replayed event %+v", ev)
		}
	}
	if m, err := getLast(ctx, n.JS, inv); err != nil || m.Header.Get(jetstream.MsgIDHeader) == "" {
		t.Fatalf("replay published without a message id: %v", err)
	}
}

func getLast(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName) (*jetstream.RawStreamMsg, error) {
	s, err := js.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		return nil, err
	}
	return s.GetLastMsgForSubject(ctx, bus.SnapshotSubject(inv))
}
