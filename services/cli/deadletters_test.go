package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/testenv"
)

func TestDeadLettersListShowRetry(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx := context.Background()
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "inv"}
	pg := busv1.Binding{SinkRef: busv1.SinkRef{Family: busv1.FamilyDatabase, Namespace: "team-a", Name: "pg"}, SinkGeneration: 1}
	kv, err := n.JS.KeyValue(ctx, bus.BucketConfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name, Generation: 1, Bindings: []busv1.Binding{pg}})
	if _, err := kv.Put(ctx, bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name}), cfg); err != nil {
		t.Fatal(err)
	}
	env := busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Inventory: inv, Revision: 7, Checksum: "sum7", Items: []busv1.Row{}}
	ev, _ := json.Marshal(busv1.SnapshotEvent{Inventory: inv, Revision: 7, Checksum: "sum7", Reason: busv1.ReasonChange,
		CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Envelope: &env, Bindings: []busv1.Binding{pg}})
	if _, err := n.JS.Publish(ctx, bus.SnapshotSubject(inv), ev); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 5, 0, 0, time.UTC)
	for _, dl := range []busv1.DeadLetter{
		{Subject: bus.SnapshotSubject(inv), StreamSequence: 1, Sink: &pg.SinkRef, Revision: 7, Time: at,
			Outcome: busv1.Outcome{Reason: "ExportRejected", Message: "database/pg: permission denied for table inventory"}},
		{Subject: bus.SnapshotSubject(inv), StreamSequence: 1, Time: at.Add(time.Minute),
			Outcome: busv1.Outcome{Reason: "EventUndecodable", Message: "decode snapshot event: unexpected end of JSON input"}},
	} {
		b, _ := json.Marshal(dl)
		if _, err := n.JS.Publish(ctx, bus.DeadLetterSubject(busv1.FamilyDatabase, inv), b); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := Main(ctx, append(args, "--nats-url", n.URL), Streams{Out: &out, Err: &errOut})
		return code, out.String(), errOut.String()
	}

	code, stdout, stderr := run("deadletters", "list", "-o", "wide")
	want := `SEQ   TIME                   INVENTORY    SINK             REVISION   REASON             MESSAGE
1     2026-01-01T00:05:00Z   team-a/inv   database/pg      7          ExportRejected     database/pg: permission denied for table inventory
2     2026-01-01T00:06:00Z   team-a/inv   database/<any>   0          EventUndecodable   decode snapshot event: unexpected end of JSON input
`
	if code != 0 || stdout != want {
		t.Fatalf("list: exit %d, stderr %s, got\n%s\nwant\n%s", code, stderr, stdout, want)
	}
	if code, stdout, _ := run("deadletters", "list", "other/inv"); code != 0 || strings.Count(stdout, "\n") != 1 {
		t.Fatalf("list of another inventory: exit %d:\n%s", code, stdout)
	}
	if code, stdout, _ := run("deadletters", "list", "--family", "snapshot", "-o", "json"); code != 0 || strings.TrimSpace(stdout) != "[]" {
		t.Fatalf("list of another family: exit %d:\n%s", code, stdout)
	}
	if code, stdout, stderr := run("deadletters", "show", "1"); code != 0 || !strings.Contains(stdout, "reason: ExportRejected") ||
		!strings.Contains(stdout, "revision: 7") {
		t.Fatalf("show: exit %d, stderr %s:\n%s", code, stderr, stdout)
	}
	if code, _, stderr := run("deadletters", "show", "9"); code != 1 || !strings.Contains(stderr, "not found") {
		t.Fatalf("show of a missing letter: exit %d, stderr %s", code, stderr)
	}
	if code, _, stderr := run("deadletters", "retry", "2"); code != 1 || !strings.Contains(stderr, "names no sink") {
		t.Fatalf("retry without sink: exit %d, stderr %s", code, stderr)
	}
	if code, stdout, stderr := run("deadletters", "retry", "1"); code != 0 || !strings.Contains(stdout, "replayed revision 7") {
		t.Fatalf("retry: exit %d, stderr %s, stdout %s", code, stderr, stdout)
	}
	evs, err := history.Events(ctx, n.JS, inv)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[1].Event.Replay == nil || evs[1].Event.Revision != 7 || len(evs[1].Event.Bindings) != 1 || evs[1].Event.Bindings[0] != pg {
		t.Fatalf("events after retry: %+v", evs)
	}
}

func TestVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Main(context.Background(), []string{"version", "-o", "json"}, Streams{Out: &out, Err: &errOut}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var b buildInfo
	if err := json.Unmarshal(out.Bytes(), &b); err != nil || b.Version == "" || b.GoVersion == "" || !strings.Contains(b.Platform, "/") {
		t.Fatalf("version -o json = %s (%v)", out.String(), err)
	}
	out.Reset()
	if code := Main(context.Background(), []string{"--version"}, Streams{Out: &out, Err: &errOut}); code != 0 || out.String() != "kollect "+b.Version+" ("+b.Commit+")\n" {
		t.Fatalf("--version: exit %d: %q", code, out.String())
	}
}
