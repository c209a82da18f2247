package sinktest

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/snapshot"
)

// inv is the inventory every case writes.
var inv = busv1.NamespacedName{Namespace: "team-a", Name: "web"}

// harness writes snapshots and compares what the sink stores.
type harness struct {
	t      *testing.T
	sink   sink.Sink
	reader Reader
}

// row returns a row named uid with attribute v.
func row(uid string, v int) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: "pod-" + uid,
		UID: uid, Version: "v1", Kind: "Pod", Attributes: map[string]any{"v": float64(v)}}
}

// snap builds the stamped snapshot of rows at revision.
func (h *harness) snap(revision uint64, rows ...busv1.Row) sink.Snapshot {
	h.t.Helper()
	env, err := snapshot.Envelope(inv, revision, 1, rows)
	if err != nil {
		h.t.Fatalf("build envelope: %v", err)
	}
	return sink.Snapshot{Envelope: env.Stamp(Cluster, time.Now())}
}

// write writes s and fails the test on error. A sink.RowStreamer gets s
// as the runtime hands it over: header-only, the rows streamed (Streamed).
func (h *harness) write(s sink.Snapshot) {
	h.t.Helper()
	if rs, ok := h.sink.(sink.RowStreamer); ok && rs.StreamsRows() {
		s = Streamed(s)
	}
	if err := h.sink.Write(context.Background(), s); err != nil {
		h.t.Fatalf("write revision %d: %v", s.Envelope.Revision, err)
	}
}

// read returns the stored projection; found is false when nothing is
// stored.
func (h *harness) read() (Projection, bool) {
	h.t.Helper()
	p, found, err := h.reader.Read(context.Background(), Cluster, inv)
	if err != nil {
		h.t.Fatalf("read projection: %v", err)
	}
	return p, found
}

// expect fails the test unless the sink holds exactly s.
func (h *harness) expect(s sink.Snapshot) {
	h.t.Helper()
	got, found := h.read()
	if !found {
		h.t.Fatalf("the sink holds nothing, want revision %d", s.Envelope.Revision)
	}
	want := Projection{Revision: s.Envelope.Revision, Checksum: s.Envelope.Checksum, Rows: s.Envelope.Items}
	if d := diff(want, got); d != "" {
		h.t.Fatalf("projection (-want +got):\n%s", d)
	}
}

func diff(want, got Projection) string {
	return cmp.Diff(want, got, cmpopts.EquateEmpty())
}

// String names a projection in failure messages.
func (p Projection) String() string {
	return fmt.Sprintf("revision %d (%d rows, %s)", p.Revision, len(p.Rows), p.Checksum)
}

// Streamed returns the loaded snapshot s as the runtime hands a full write
// to a sink.RowStreamer: header-only, with Load returning s's envelope and
// Stream yielding its rows' canonical JSON.
func Streamed(s sink.Snapshot) sink.Snapshot {
	full := s.Envelope
	s.Envelope.Items = nil
	s.Load = func(context.Context) (busv1.Envelope, error) { return full, nil }
	s.Stream = func(context.Context) iter.Seq2[json.RawMessage, error] {
		return func(yield func(json.RawMessage, error) bool) {
			for i := range full.Items {
				raw, err := snapshot.Canonical(&full.Items[i])
				if !yield(raw, err) || err != nil {
					return
				}
			}
		}
	}
	return s
}
