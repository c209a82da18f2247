package nats_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/snapshot"
	natssink "kollect.dev/kollect/services/eventexporter/internal/nats"
)

var web = busv1.NamespacedName{Namespace: "team-a", Name: "web"}

func row(uid string, v any) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: "pod-" + uid,
		UID: uid, Version: "v1", Kind: "Pod", Attributes: map[string]any{"v": v}}
}

func snap(t testing.TB, rev uint64, rows ...busv1.Row) sink.Snapshot {
	t.Helper()
	env, err := snapshot.Envelope(web, rev, 2, rows)
	if err != nil {
		t.Fatal(err)
	}
	return sink.Snapshot{Envelope: env.Stamp("east", time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))}
}

func write(t *testing.T, s sink.Sink, sn sink.Snapshot) {
	t.Helper()
	if err := s.Write(context.Background(), sn); err != nil {
		t.Fatalf("write revision %d: %v", sn.Envelope.Revision, err)
	}
}

// stored returns, per message of stream, its Nats-Msg-Id and revision.
func stored(t *testing.T, js jetstream.JetStream, stream string) []string {
	t.Helper()
	msgs, err := messages(context.Background(), js, stream)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Header.Get(nats.MsgIdHdr)
	}
	return out
}

func TestMessage(t *testing.T) {
	p := startNATS(t, nil)
	s := newSink(t, private, sinkConfig(t, spec(p.url, "inventory.events", "INVENTORY")), nil)
	sn := snap(t, 3, row("a", 1), row("b", 2))
	write(t, s, sn)
	msgs, err := messages(context.Background(), p.js, "INVENTORY")
	if err != nil || len(msgs) != 1 {
		t.Fatalf("messages: %d, %v; want one", len(msgs), err)
	}
	m := msgs[0]
	want, _ := json.Marshal(sn.Envelope)
	got := map[string]any{"subject": m.Subject, "data": string(m.Data), "headers": map[string][]string(m.Header)}
	wantMsg := map[string]any{"subject": "inventory.events", "data": string(want), "headers": map[string][]string{
		"Kollect-Schema": {busv1.SchemaVersion}, "Kollect-Checksum": {sn.Envelope.Checksum}, "Kollect-Revision": {"3"},
		"Kollect-Cluster": {"east"}, "Kollect-Inventory": {"team-a/web"},
		"Nats-Msg-Id":          {"east/team-a/web/" + sn.Envelope.Checksum + "/3"},
		"Nats-Expected-Stream": {"INVENTORY"},
	}}
	if d := cmp.Diff(wantMsg, got); d != "" {
		t.Fatalf("message (-want +got):\n%s", d)
	}
}

func TestDeduplication(t *testing.T) {
	p := startNATS(t, nil)
	cfg := sinkConfig(t, spec(p.url, "dedupe.events", "DEDUPE"))
	a1, b2, a3 := snap(t, 1, row("a", 1)), snap(t, 2, row("b", 1)), snap(t, 3, row("a", 1))
	id := func(sn sink.Snapshot) string { return natssink.MsgID(sn.Envelope, false) }
	first := newSink(t, private, cfg, nil)
	write(t, first, a1)
	// A second sink (a restart, another replica) knows nothing of the
	// first: the server drops the same content by its Nats-Msg-Id.
	again := a1
	again.Envelope.ExportedAt = again.Envelope.ExportedAt.Add(time.Minute)
	write(t, newSink(t, private, cfg, nil), again)
	if d := cmp.Diff([]string{id(a1)}, stored(t, p.js, "DEDUPE")); d != "" {
		t.Fatalf("publishing the same content twice (-want +got):\n%s", d)
	}
	// Content that returns to an earlier checksum is a new revision and
	// is stored, within the duplicate window.
	write(t, first, b2)
	write(t, first, a3)
	if d := cmp.Diff([]string{id(a1), id(b2), id(a3)}, stored(t, p.js, "DEDUPE")); d != "" {
		t.Fatalf("A, B, then A again (-want +got):\n%s", d)
	}
	st, err := p.js.Stream(context.Background(), "DEDUPE")
	if err != nil {
		t.Fatal(err)
	}
	if got := st.CachedInfo().Config.Duplicates; got != 2*time.Minute {
		t.Fatalf("created stream's duplicate window = %v, want 2m", got)
	}
}

func TestParts(t *testing.T) {
	tests := []struct {
		name       string
		maxPayload int32
		binding    int64
	}{
		{"the binding's maxExportBytes splits the envelope", 0, 1500},
		{"the server's max_payload splits the envelope when the binding sets no limit", 2048, 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startNATS(t, func(o *server.Options) { o.MaxPayload = tt.maxPayload })
			stream := fmt.Sprintf("PARTS_%d", i)
			s := newSink(t, private, sinkConfig(t, spec(p.url, "parts.events", stream)), nil)
			var rows []busv1.Row
			for j := range 30 {
				rows = append(rows, row(fmt.Sprintf("u%02d", j), strings.Repeat("x", 100)))
			}
			sn := snap(t, 4, rows...)
			sn.MaxExportBytes = tt.binding
			write(t, s, sn)
			msgs, err := messages(context.Background(), p.js, stream)
			if err != nil || len(msgs) < 3 {
				t.Fatalf("messages: %d, %v; want several parts", len(msgs), err)
			}
			for j, m := range msgs {
				if got, want := m.Header.Get(natssink.HeaderPart), fmt.Sprintf("%d/%d", j, len(msgs)); got != want {
					t.Fatalf("part %d header = %q, want %q", j, got, want)
				}
				if got, want := m.Header.Get(nats.MsgIdHdr), fmt.Sprintf("east/team-a/web/%s/4/%d/%d", sn.Envelope.Checksum, j, len(msgs)); got != want {
					t.Fatalf("part %d Nats-Msg-Id = %q, want %q", j, got, want)
				}
			}
			got, found, err := reader{js: p.js, stream: stream}.Read(context.Background(), "east", web)
			if err != nil || !found {
				t.Fatalf("read: %v (found %v)", err, found)
			}
			if d := cmp.Diff(sn.Envelope.Items, got.Rows); d != "" {
				t.Fatalf("rows across parts (-want +got):\n%s", d)
			}
		})
	}
}

func TestOversizedRow(t *testing.T) {
	p := startNATS(t, nil)
	s := newSink(t, private, sinkConfig(t, spec(p.url, "big.events", "BIG")), nil)
	sn := snap(t, 1, row("a", 1), row("huge", strings.Repeat("x", 5000)))
	sn.MaxExportBytes = 2000
	expectPermanent(t, s.Write(context.Background(), sn), "Pod team-a/pod-huge")
}
