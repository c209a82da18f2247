package kafka_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kfake"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/services/eventexporter/internal/kafka"
)

// A revision delivered again to a new sink (the exporter killed after the
// produce, before it recorded the export state) is not sent again: the
// new sink reads its high-water mark back from the topic.
func TestARevisionTheTopicHoldsIsNotSentAgainAfterARestart(t *testing.T) {
	for _, mode := range []string{v1alpha1.KafkaModeSnapshot, v1alpha1.KafkaModePerRow} {
		t.Run(mode, func(t *testing.T) {
			broker := startKafka(t, kfake.DefaultNumPartitions(3))
			cfg := sinkConfig(t, spec(broker, "again", mode))
			s1 := snap(t, web, 1, row("a", 1), row("b", 1))
			s2 := snap(t, web, 2, row("a", 2), row("b", 1))
			other := snap(t, busv1.NamespacedName{Namespace: "team-b", Name: "db"}, 7, row("x", 1))
			first := newSink(t, private, cfg, nil)
			write(t, first, s1)
			write(t, first, s2)
			write(t, first, other)
			before := len(records(t, broker, "again", func([]byte) string { return "" }))
			second := newSink(t, private, cfg, nil)
			write(t, second, s2)
			if err := second.WriteDelta(context.Background(), s2); err != nil {
				t.Fatal(err)
			}
			if after := len(records(t, broker, "again", func([]byte) string { return "" })); after != before {
				t.Fatalf("the topic grew from %d to %d records on a revision it holds", before, after)
			}
			s3 := snap(t, web, 3, row("a", 3), row("b", 1))
			write(t, second, s3)
			r := reader{broker: broker, topic: "again", perRow: mode == v1alpha1.KafkaModePerRow}
			got, found, err := r.Read(context.Background(), "east", web)
			if err != nil || !found || got.Revision != 3 {
				t.Fatalf("read back: revision %d, found %t, %v; want revision 3", got.Revision, found, err)
			}
		})
	}
}

// A full write by a new sink in perRow mode (no delta: the export state's
// snapshot is no longer in the history) tombstones the rows the topic
// holds and the snapshot lacks, and sends only the rows that changed.
func TestAFullPerRowWriteAfterARestartTombstonesTheRowsTheTopicHolds(t *testing.T) {
	broker := startKafka(t, kfake.DefaultNumPartitions(3))
	cfg := sinkConfig(t, spec(broker, "recall", v1alpha1.KafkaModePerRow))
	s1 := snap(t, web, 1, row("a", 1.0), row("b", 1.0), row("c", 1.0), row("d", 1.0))
	other := snap(t, busv1.NamespacedName{Namespace: "team-a", Name: "web-2"}, 1, row("b", 1.0))
	first := newSink(t, private, cfg, nil)
	write(t, first, s1)
	write(t, first, other)
	s5 := snap(t, web, 5, row("a", 1.0), row("c", 2.0), row("e", 1.0))
	write(t, newSink(t, private, cfg, nil), s5)

	summary := func(b []byte) string {
		var v struct {
			Revision uint64     `json:"revision"`
			Row      *busv1.Row `json:"row"`
		}
		_ = json.Unmarshal(b, &v)
		if v.Row == nil {
			return fmt.Sprintf("inventory @%d", v.Revision)
		}
		return fmt.Sprintf("row %s @%d", v.Row.UID, v.Revision)
	}
	var sent []string
	for _, r := range records(t, broker, "recall", summary) {
		if r.Headers["kollect-revision"] == "5" {
			sent = append(sent, r.Key+" "+r.Value)
		}
	}
	key := func(uid string) string { return "east/team-a/web/team-a/pods/" + uid }
	want := map[string]bool{key("c") + " row c @5": true, key("e") + " row e @5": true, key("b") + " <null>": true,
		key("d") + " <null>": true, "east/team-a/web inventory @5": true}
	got := map[string]bool{}
	for _, s := range sent {
		got[s] = true
	}
	if d := cmp.Diff(want, got); d != "" || len(sent) != len(want) {
		t.Fatalf("records of revision 5 %v (-want +got):\n%s", sent, d)
	}
	r := reader{broker: broker, topic: "recall", perRow: true}
	proj, found, err := r.Read(context.Background(), "east", web)
	wantProj := sinktest.Projection{Revision: 5, Checksum: s5.Envelope.Checksum, Rows: s5.Envelope.Items}
	if err != nil || !found {
		t.Fatalf("read back: %v (found %t)", err, found)
	}
	if d := cmp.Diff(wantProj, proj); d != "" {
		t.Fatalf("compacted view (-want +got):\n%s", d)
	}
	// The other inventory's row b is untouched.
	proj, _, _ = r.Read(context.Background(), "east", other.Envelope.Inventory)
	if len(proj.Rows) != 1 {
		t.Fatalf("the other inventory holds %d rows, want 1", len(proj.Rows))
	}
}

// Past the read-back bound a restarted sink's full write upserts every row
// and cannot tombstone the rows deleted meanwhile: the documented gap,
// visible as an inventory record whose itemCount is below the live keys.
func TestPastTheReadBackBoundAFullPerRowWriteSendsNoTombstones(t *testing.T) {
	broker := startKafka(t, kfake.DefaultNumPartitions(1))
	cfg := sinkConfig(t, spec(broker, "bounded", v1alpha1.KafkaModePerRow))
	write(t, newSink(t, private, cfg, nil), snap(t, web, 1, row("a", 1.0), row("b", 1.0), row("c", 1.0)))
	restarted := newSink(t, private, cfg, nil)
	kafka.SetRecallLimit(restarted, 3) // the topic holds 4 records
	s2 := snap(t, web, 2, row("a", 1.0))
	write(t, restarted, s2)
	r := reader{broker: broker, topic: "bounded", perRow: true}
	proj, _, err := r.Read(context.Background(), "east", web)
	if err != nil {
		t.Fatal(err)
	}
	if proj.Revision != 2 || len(proj.Rows) != 3 {
		t.Fatalf("revision %d with %d live rows; want revision 2 with the 3 rows of revision 1 still live", proj.Revision, len(proj.Rows))
	}
}

// A sink that has sent only deltas since it started knows no row hashes;
// when its next write is full (the export state was lost with the bus's
// storage, so no delta applies), it reads the live rows back like a
// restarted sink and tombstones what the snapshot lacks. Found by the fault
// suite's NATS-wipe run: the rows deleted meanwhile stayed in the topic.
func TestAFullPerRowWriteAfterOnlyDeltasTombstonesWhatTheTopicHolds(t *testing.T) {
	broker := startKafka(t)
	cfg := sinkConfig(t, spec(broker, "deltas", v1alpha1.KafkaModePerRow))
	s1 := snap(t, web, 1, row("a", 1.0), row("b", 1.0), row("c", 1.0))
	write(t, newSink(t, private, cfg, nil), s1) // an earlier process
	second := newSink(t, private, cfg, nil)
	s2 := snap(t, web, 2, row("a", 2.0), row("b", 1.0), row("c", 1.0))
	s2.Delta = &busv1.Delta{BaseRevision: 1, BaseChecksum: s1.Envelope.Checksum, Upserts: []busv1.Row{row("a", 2.0)}}
	if err := second.WriteDelta(context.Background(), s2); err != nil {
		t.Fatal(err)
	}
	s9 := snap(t, web, 9, row("a", 2.0))
	write(t, second, s9)
	r := reader{broker: broker, topic: "deltas", perRow: true}
	got, found, err := r.Read(context.Background(), "east", web)
	if err != nil || !found {
		t.Fatalf("read back: %v (found %t)", err, found)
	}
	want := sinktest.Projection{Revision: 9, Checksum: s9.Envelope.Checksum, Rows: s9.Envelope.Items}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("compacted view (-want +got):\n%s", d)
	}
}
