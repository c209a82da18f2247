package kafka_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

// TestAStreamedFullWriteSendsTheLoadedRecords writes one snapshot loaded to
// a topic and, through a second sink, as the runtime hands it to a
// RowStreamer (rows read from Snapshot.Rows) to another, and with a delta,
// which snapshot mode writes whole from the streamed rows, to a third: the
// records, keys, values and headers, must be the same, whole and in parts.
func TestAStreamedFullWriteSendsTheLoadedRecords(t *testing.T) {
	broker := startKafka(t)
	tests := []struct {
		name    string
		binding int64
	}{
		{"a snapshot that fits is one record", 0},
		{"the binding's maxExportBytes splits the envelope", 1500},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows []busv1.Row
			for j := range 30 {
				rows = append(rows, row(fmt.Sprintf("u%02d", j), "<a href=\"x&y\">\u2028é</a>"+strings.Repeat("x", 60)))
			}
			sn := snap(t, web, 4, rows...)
			sn.MaxExportBytes = tt.binding
			var got [3][]record
			for k, mode := range []string{"loaded", "streamed", "delta"} {
				topic := fmt.Sprintf("%s-%d", mode, i)
				s := newSink(t, private, sinkConfig(t, spec(broker, topic, v1alpha1.KafkaModeSnapshot)), nil)
				w := sn
				if mode == "streamed" {
					if !s.StreamsRows() {
						t.Fatal("a snapshot-mode sink does not stream rows")
					}
					w = sinktest.Streamed(sn)
				}
				if mode == "delta" { // a delta a snapshot-mode sink writes whole
					w = sinktest.Streamed(sn)
					w.Delta = &busv1.Delta{BaseRevision: 3, BaseChecksum: "base", Deletes: []busv1.RowKey{{UID: "gone"}}}
					w.Load = func(context.Context) (busv1.Envelope, error) {
						return busv1.Envelope{}, errors.New("the write loaded the snapshot instead of streaming its rows")
					}
					if err := s.WriteDelta(context.Background(), w); err != nil {
						t.Fatalf("write the delta: %v", err)
					}
				} else {
					write(t, s, w)
				}
				got[k] = records(t, broker, topic, func(b []byte) string { return string(b) })
			}
			if tt.binding > 0 && len(got[0]) < 3 {
				t.Fatalf("%d records, want several parts", len(got[0]))
			}
			for k, mode := range []string{"streamed", "delta"} {
				if d := cmp.Diff(got[0], got[k+1]); d != "" {
					t.Fatalf("records (-loaded +%s):\n%s", mode, d)
				}
			}
		})
	}
}

// TestAStreamedPerRowWriteSendsTheLoadedRecords writes two revisions in
// perRow mode, loaded to one topic and streamed to another (the second
// revision changes a row, deletes one and adds one): the records must be
// the same, tombstones included (compared in key order: a write sends them
// in no particular order).
func TestAStreamedPerRowWriteSendsTheLoadedRecords(t *testing.T) {
	broker := startKafka(t)
	html := "<a href=\"x&y\">\u2028é</a>"
	revs := []sink.Snapshot{
		snap(t, web, 1, row("u1", html), row("u2", 2), row("u3", 3)),
		snap(t, web, 2, row("u1", html), row("u2", "changed"), row("u4", 4)),
	}
	var got [2][]record
	for k, mode := range []string{"loaded", "streamed"} {
		topic := "perrow-" + mode
		s := newSink(t, private, sinkConfig(t, spec(broker, topic, v1alpha1.KafkaModePerRow)), nil)
		for _, sn := range revs {
			if mode == "streamed" {
				sn = sinktest.Streamed(sn)
			}
			write(t, s, sn)
		}
		got[k] = records(t, broker, topic, func(b []byte) string { return string(b) })
		slices.SortStableFunc(got[k], func(a, b record) int { return strings.Compare(a.Key, b.Key) })
	}
	if len(got[0]) != 3+1+2+1+1 { // rev 1: 3 rows and the inventory; rev 2: 2 rows, a tombstone, the inventory
		t.Fatalf("%d records, want 8", len(got[0]))
	}
	if d := cmp.Diff(got[0], got[1]); d != "" {
		t.Fatalf("records (-loaded +streamed):\n%s", d)
	}
}
