package kafka_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/snapshot"
)

var (
	exportedAt = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	web        = busv1.NamespacedName{Namespace: "team-a", Name: "web"}
)

func row(uid string, v any) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: "pod-" + uid,
		UID: uid, Version: "v1", Kind: "Pod", Attributes: map[string]any{"v": v}}
}

func snap(t testing.TB, inv busv1.NamespacedName, rev uint64, rows ...busv1.Row) sink.Snapshot {
	t.Helper()
	env, err := snapshot.Envelope(inv, rev, 2, rows)
	if err != nil {
		t.Fatal(err)
	}
	return sink.Snapshot{Envelope: env.Stamp("east", exportedAt)}
}

// record is what a test compares of a Kafka record.
type record struct {
	Key     string
	Value   string // "<null>" for a tombstone, else the value or a summary
	Headers map[string]string
}

func records(t *testing.T, broker, topic string, value func([]byte) string) []record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	recs, err := readTopic(ctx, broker, topic)
	if err != nil {
		t.Fatalf("read topic %s: %v", topic, err)
	}
	out := make([]record, len(recs))
	for i, r := range recs {
		h := map[string]string{}
		for _, kv := range r.Headers {
			h[kv.Key] = string(kv.Value)
		}
		v := "<null>"
		if r.Value != nil {
			v = value(r.Value)
		}
		out[i] = record{Key: string(r.Key), Value: v, Headers: h}
	}
	return out
}

func hdrs(env busv1.Envelope, extra ...string) map[string]string {
	h := map[string]string{"kollect-schema": busv1.SchemaVersion, "kollect-checksum": env.Checksum,
		"kollect-revision": fmt.Sprint(env.Revision), "kollect-cluster": "east",
		"kollect-inventory": env.Inventory.Namespace + "/" + env.Inventory.Name}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

func write(t *testing.T, s sink.Sink, sn sink.Snapshot) {
	t.Helper()
	if err := s.Write(context.Background(), sn); err != nil {
		t.Fatalf("write revision %d: %v", sn.Envelope.Revision, err)
	}
}

func TestSnapshotRecords(t *testing.T) {
	broker := startKafka(t)
	envelopeJSON := func(b []byte) string { return string(b) }
	tests := []struct {
		name string
		inv  busv1.NamespacedName
		key  string
	}{
		{"a namespaced inventory is keyed cluster/namespace/name", web, "east/team-a/web"},
		{"a cluster inventory has an empty namespace segment", busv1.NamespacedName{Name: "all-pods"}, "east//all-pods"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			topic := fmt.Sprintf("snapshot-%d", i)
			s := newSink(t, private, sinkConfig(t, spec(broker, topic, "")), nil)
			sn := snap(t, tt.inv, 3, row("a", 1), row("b", 2))
			write(t, s, sn)
			want, _ := json.Marshal(sn.Envelope)
			got := records(t, broker, topic, envelopeJSON)
			if d := cmp.Diff([]record{{Key: tt.key, Value: string(want), Headers: hdrs(sn.Envelope)}}, got); d != "" {
				t.Fatalf("records (-want +got):\n%s", d)
			}
		})
	}
}

func TestSnapshotParts(t *testing.T) {
	broker := startKafka(t)
	s := newSink(t, private, sinkConfig(t, spec(broker, "parts", "")), nil)
	var rows []busv1.Row
	for i := range 30 {
		rows = append(rows, row(fmt.Sprintf("u%02d", i), strings.Repeat("x", 100)))
	}
	sn := snap(t, web, 4, rows...)
	sn.MaxExportBytes = 1500
	write(t, s, sn)

	ctx := context.Background()
	recs, err := readTopic(ctx, broker, "parts")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 3 {
		t.Fatalf("got %d records, want the snapshot in several parts", len(recs))
	}
	var items []busv1.Row
	for i, r := range recs {
		if len(r.Value) > 1500 || r.Partition != recs[0].Partition || string(r.Key) != "east/team-a/web" {
			t.Fatalf("part %d: %d bytes, partition %d, key %q; want <= 1500 bytes, one partition, the inventory key", i, len(r.Value), r.Partition, r.Key)
		}
		if got, want := hdrOf(r, "kollect-part"), fmt.Sprintf("%d/%d", i, len(recs)); got != want {
			t.Fatalf("part %d header kollect-part = %q, want %q", i, got, want)
		}
		var env busv1.Envelope
		if err := json.Unmarshal(r.Value, &env); err != nil {
			t.Fatal(err)
		}
		if env.PartIndex != i || env.PartTotal != len(recs) || env.ItemCount != 30 || env.Checksum != sn.Envelope.Checksum {
			t.Fatalf("part %d envelope: index %d/%d, itemCount %d", i, env.PartIndex, env.PartTotal, env.ItemCount)
		}
		items = append(items, env.Items...)
	}
	if d := cmp.Diff(sn.Envelope.Items, items); d != "" {
		t.Fatalf("items across parts (-want +got):\n%s", d)
	}
}

func hdrOf(r *kgo.Record, key string) string { v, _ := header(r, key); return v }

func TestOversizedRow(t *testing.T) {
	broker := startKafka(t)
	for _, mode := range []string{v1alpha1.KafkaModeSnapshot, v1alpha1.KafkaModePerRow} {
		t.Run("a row larger than maxExportBytes is a permanent error naming it in mode "+mode, func(t *testing.T) {
			s := newSink(t, private, sinkConfig(t, spec(broker, "big-"+mode, mode)), nil)
			sn := snap(t, web, 1, row("a", 1), row("huge", strings.Repeat("x", 5000)))
			sn.MaxExportBytes = 2000
			expectPermanent(t, s.Write(context.Background(), sn), "Pod team-a/pod-huge")
		})
	}
}

func TestPerRowRecords(t *testing.T) {
	broker := startKafka(t, kfake.DefaultNumPartitions(1)) // one partition: one order to compare
	summary := func(b []byte) string {
		var v struct {
			Revision  uint64          `json:"revision"`
			ItemCount *int            `json:"itemCount"`
			Row       *busv1.Row      `json:"row"`
			Items     json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return "undecodable: " + err.Error()
		}
		if v.Row != nil {
			return fmt.Sprintf("row %s=%v @%d", v.Row.UID, v.Row.Attributes["v"], v.Revision)
		}
		return fmt.Sprintf("inventory itemCount=%d @%d items=%t", *v.ItemCount, v.Revision, v.Items != nil)
	}
	s1 := snap(t, web, 1, row("a", 1), row("b", 1), row("c", 1))
	s2 := snap(t, web, 2, row("a", 2), row("c", 1))
	s3 := snap(t, web, 3, row("c", 1), row("d", 1))
	s3.Delta = &busv1.Delta{BaseRevision: 2, BaseChecksum: s2.Envelope.Checksum, Upserts: []busv1.Row{row("d", 1)},
		Deletes: []busv1.RowKey{row("a", 2).Key()}}
	rowHdr := func(env busv1.Envelope) map[string]string { return hdrs(env, "kollect-record", "row") }
	invHdr := func(env busv1.Envelope) map[string]string { return hdrs(env, "kollect-record", "inventory") }
	key := func(uid string) string { return "east/team-a/web/team-a/pods/" + uid }

	first := newSink(t, private, sinkConfig(t, spec(broker, "rows", v1alpha1.KafkaModePerRow)), nil)
	write(t, first, s1)
	write(t, first, s2)
	// A new sink (a restart) knows no rows: the delta's deletes still
	// become tombstones.
	second := newSink(t, private, sinkConfig(t, spec(broker, "rows", v1alpha1.KafkaModePerRow)), nil)
	if err := second.WriteDelta(context.Background(), s3); err != nil {
		t.Fatalf("write delta: %v", err)
	}
	want := []record{
		{key("a"), "row a=1 @1", rowHdr(s1.Envelope)},
		{key("b"), "row b=1 @1", rowHdr(s1.Envelope)},
		{key("c"), "row c=1 @1", rowHdr(s1.Envelope)},
		{"east/team-a/web", "inventory itemCount=3 @1 items=false", invHdr(s1.Envelope)},
		{key("a"), "row a=2 @2", rowHdr(s2.Envelope)},
		{key("b"), "<null>", rowHdr(s2.Envelope)},
		{"east/team-a/web", "inventory itemCount=2 @2 items=false", invHdr(s2.Envelope)},
		{key("d"), "row d=1 @3", rowHdr(s3.Envelope)},
		{key("a"), "<null>", rowHdr(s3.Envelope)},
		{"east/team-a/web", "inventory itemCount=2 @3 items=false", invHdr(s3.Envelope)},
	}
	got := records(t, broker, "rows", summary)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("records (-want +got):\n%s", d)
	}
}

// headerOnly returns s as the runtime hands a delta over: the envelope
// without items, the full one through Load, whose calls loads counts.
func headerOnly(s sink.Snapshot, loads *int) sink.Snapshot {
	full := s.Envelope
	s.Envelope.Items = nil
	s.Load = func(context.Context) (busv1.Envelope, error) { *loads++; return full, nil }
	return s
}

func TestPerRowDeltasAreEncodedFromTheDeltaAlone(t *testing.T) {
	broker := startKafka(t, kfake.DefaultNumPartitions(1))
	summary := func(b []byte) string {
		var v struct {
			Revision uint64     `json:"revision"`
			Row      *busv1.Row `json:"row"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return "undecodable: " + err.Error()
		}
		if v.Row != nil {
			return fmt.Sprintf("row %s=%v @%d", v.Row.UID, v.Row.Attributes["v"], v.Revision)
		}
		return fmt.Sprintf("inventory @%d", v.Revision)
	}
	key := func(uid string) string { return "east/team-a/web/team-a/pods/" + uid }
	s1 := snap(t, web, 1, row("a", 1), row("b", 1), row("c", 1))
	s2 := snap(t, web, 2, row("a", 2), row("c", 1))
	s2.Delta = &busv1.Delta{BaseRevision: 1, BaseChecksum: s1.Envelope.Checksum, Upserts: []busv1.Row{row("a", 2)},
		Deletes: []busv1.RowKey{row("b", 1).Key()}}
	s3 := snap(t, web, 3, row("c", 1), row("d", 1))
	s4 := snap(t, web, 4, row("c", 2), row("d", 1))
	s4.Delta = &busv1.Delta{BaseRevision: 2, BaseChecksum: s2.Envelope.Checksum, Upserts: []busv1.Row{row("c", 2)}}

	k := newSink(t, private, sinkConfig(t, spec(broker, "deltas", v1alpha1.KafkaModePerRow)), nil)
	write(t, k, s1)
	loads := 0
	if err := k.WriteDelta(context.Background(), headerOnly(s2, &loads)); err != nil {
		t.Fatalf("write delta 2: %v", err)
	}
	if loads != 0 {
		t.Fatalf("a delta on the base last sent loaded the snapshot %d times, want none", loads)
	}
	// The memory follows the delta: b is known deleted, a changed; the full
	// revision 3 sends d and a tombstone for a, and nothing for b.
	write(t, k, s3)
	// A delta on revision 2 while the topic got 3: loaded and diffed.
	if err := k.WriteDelta(context.Background(), headerOnly(s4, &loads)); err != nil {
		t.Fatalf("write delta 4: %v", err)
	}
	if loads != 1 {
		t.Fatalf("a delta on another base than the last sent loaded the snapshot %d times, want once", loads)
	}
	hdr := func(s sink.Snapshot, rec string) map[string]string { return hdrs(s.Envelope, "kollect-record", rec) }
	want := []record{
		{key("a"), "row a=1 @1", hdr(s1, "row")},
		{key("b"), "row b=1 @1", hdr(s1, "row")},
		{key("c"), "row c=1 @1", hdr(s1, "row")},
		{"east/team-a/web", "inventory @1", hdr(s1, "inventory")},
		{key("a"), "row a=2 @2", hdr(s2, "row")},
		{key("b"), "<null>", hdr(s2, "row")},
		{"east/team-a/web", "inventory @2", hdr(s2, "inventory")},
		{key("d"), "row d=1 @3", hdr(s3, "row")},
		{key("a"), "<null>", hdr(s3, "row")},
		{"east/team-a/web", "inventory @3", hdr(s3, "inventory")},
		{key("c"), "row c=2 @4", hdr(s4, "row")},
		{"east/team-a/web", "inventory @4", hdr(s4, "inventory")},
	}
	if d := cmp.Diff(want, records(t, broker, "deltas", summary)); d != "" {
		t.Fatalf("records (-want +got):\n%s", d)
	}
}
