package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

func TestSnapshotsListsAnInventorysHistory(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx := context.Background()
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "inv"}
	for rev := uint64(1); rev <= 2; rev++ {
		b, err := json.Marshal(busv1.SnapshotEvent{Inventory: inv, Revision: rev, Checksum: "sum" + string(rune('0'+rev)),
			ItemCount: int(rev), Reason: busv1.ReasonChange, CreatedAt: time.Date(2026, 1, 1, 0, int(rev), 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.JS.PublishMsg(ctx, &nats.Msg{Subject: bus.SnapshotSubject(inv), Data: b}); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	if code := Main(ctx, []string{"snapshots", "team-a/inv", "--nats-url", n.URL}, Streams{Out: &out, Err: &errOut}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "1 ") || !strings.Contains(lines[2], "2026-01-01T00:02:00Z") ||
		!strings.Contains(lines[2], "sum2") {
		t.Fatalf("output:\n%s", out.String())
	}

	out.Reset()
	if code := Main(ctx, []string{"snapshots", "team-a/inv", "--nats-url", n.URL, "-o", "json"}, Streams{Out: &out, Err: &errOut}); code != 0 {
		t.Fatalf("-o json: exit %d: %s", code, errOut.String())
	}
	var got []map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("-o json is not a JSON list: %v\n%s", err, out.String())
	}
	if len(got) != 2 || got[1]["revision"] != 2.0 || got[1]["checksum"] != "sum2" || got[1]["itemCount"] != 2.0 ||
		got[1]["time"] != "2026-01-01T00:02:00Z" || got[1]["reason"] != string(busv1.ReasonChange) ||
		got[0]["inventory"].(map[string]any)["namespace"] != "team-a" {
		t.Fatalf("-o json:\n%s", out.String())
	}
	out.Reset()
	if code := Main(ctx, []string{"snapshots", "team-a/inv", "--nats-url", n.URL, "-o", "ndjson"}, Streams{Out: &out, Err: &errOut}); code != 0 ||
		strings.Count(out.String(), "\n") != 2 {
		t.Fatalf("-o ndjson: exit %d, output:\n%s", code, out.String())
	}
	errOut.Reset()
	if code := Main(ctx, []string{"snapshots", "team-a/inv", "-o", "csv"}, Streams{Out: &out, Err: &errOut}); code != 2 ||
		!strings.Contains(errOut.String(), `-o/--output "csv"`) {
		t.Fatalf("-o csv: exit %d, stderr %q", code, errOut.String())
	}
}
