package sinktest

import (
	"context"
	"errors"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// testCase is one conformance property.
type testCase struct {
	name string
	run  func(t *testing.T, h *harness)
}

func cases() []testCase {
	return []testCase{
		{"a snapshot is stored as written", func(t *testing.T, h *harness) {
			s := h.snap(1, row("a", 1), row("b", 2))
			h.write(s)
			h.expect(s)
		}},
		{"a repeated write is a no-op", func(t *testing.T, h *harness) {
			s := h.snap(1, row("a", 1), row("b", 2))
			h.write(s)
			before, _ := h.read()
			again := s
			again.Envelope = s.Envelope.Stamp(Cluster, time.Now().Add(time.Minute))
			h.write(again)
			after, _ := h.read()
			if d := diff(before, after); d != "" {
				t.Fatalf("a repeated write changed the projection (-before +after):\n%s", d)
			}
		}},
		{"an older revision never overwrites a newer one", func(t *testing.T, h *harness) {
			newer := h.snap(5, row("a", 5))
			h.write(newer)
			// An older revision may be refused with an error or ignored,
			// but must not change the projection.
			_ = h.sink.Write(context.Background(), h.snap(4, row("a", 4), row("b", 4)))
			h.expect(newer)
		}},
		{"deleted rows leave the projection", func(t *testing.T, h *harness) {
			h.write(h.snap(1, row("a", 1), row("b", 1), row("c", 1)))
			s := h.snap(2, row("a", 2), row("c", 1))
			h.write(s)
			h.expect(s)
		}},
		{"an empty snapshot empties the projection", func(t *testing.T, h *harness) {
			h.write(h.snap(1, row("a", 1), row("b", 1)))
			s := h.snap(2)
			h.write(s)
			h.expect(s)
		}},
		{"a deleted inventory is removed", func(t *testing.T, h *harness) {
			h.write(h.snap(1, row("a", 1)))
			s := h.snap(2)
			s.Deleted = true
			h.write(s)
			if p, found := h.read(); found && len(p.Rows) > 0 {
				t.Fatalf("the deleted inventory still holds %s", p)
			}
		}},
		{"a cancelled context stops a write", checkCancelled},
		{"a delta yields the same projection as its snapshot", checkDelta},
		{"a delta on a base the sink does not hold writes the loaded snapshot", checkDeltaFallback},
		{"a sink damaged by hand is found by Drift and restored by a repair", checkDrift},
	}
}

func checkCancelled(t *testing.T, h *harness) {
	first := h.snap(1, row("a", 1))
	h.write(first)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := h.sink.Write(ctx, h.snap(2, row("b", 2)))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("write with a cancelled context returned %v, want context.Canceled", err)
	}
	h.expect(first)
}

func checkDelta(t *testing.T, h *harness) {
	dw, ok := h.sink.(sink.DeltaWriter)
	if !ok {
		t.Skip("the sink does not apply deltas")
	}
	base := h.snap(1, row("a", 1), row("b", 1))
	h.write(base)
	s := h.snap(2, row("a", 2), row("c", 1))
	s.Delta = &busv1.Delta{BaseRevision: 1, BaseChecksum: base.Envelope.Checksum, Upserts: []busv1.Row{row("a", 2), row("c", 1)},
		Deletes: []busv1.RowKey{row("b", 1).Key()}}
	if err := dw.WriteDelta(context.Background(), headerOnly(s)); err != nil {
		t.Fatalf("write delta: %v", err)
	}
	h.expect(s)
}

// checkDeltaFallback hands WriteDelta a delta whose base the sink does not
// hold (another revision and checksum), and that alone would leave row b
// behind: the sink must load the snapshot and write it whole.
func checkDeltaFallback(t *testing.T, h *harness) {
	dw, ok := h.sink.(sink.DeltaWriter)
	if !ok {
		t.Skip("the sink does not apply deltas")
	}
	h.write(h.snap(1, row("a", 1), row("b", 1)))
	s := h.snap(3, row("a", 3), row("c", 3))
	s.Delta = &busv1.Delta{BaseRevision: 2, BaseChecksum: "another", Upserts: []busv1.Row{row("a", 3), row("c", 3)},
		Deletes: []busv1.RowKey{}}
	if err := dw.WriteDelta(context.Background(), Streamed(s)); err != nil {
		t.Fatalf("write delta: %v", err)
	}
	h.expect(s)
}

// headerOnly returns s as the runtime hands it to WriteDelta: the envelope
// without items, and a Load that returns the full one.
func headerOnly(s sink.Snapshot) sink.Snapshot {
	full := s.Envelope
	s.Envelope.Items = nil
	s.Load = func(ctx context.Context) (busv1.Envelope, error) {
		if err := ctx.Err(); err != nil {
			return busv1.Envelope{}, err
		}
		return full, nil
	}
	return s
}

func checkBadCredentials(t *testing.T, s sink.Sink) {
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	h := &harness{t: t, sink: s}
	err := s.Write(context.Background(), h.snap(1, row("a", 1)))
	if !sink.IsPermanent(err) {
		t.Fatalf("write with bad credentials returned %v, want a permanent error", err)
	}
	if c, ok := s.(sink.Checker); ok {
		if err := c.Check(context.Background()); !sink.IsPermanent(err) {
			t.Fatalf("check with bad credentials returned %v, want a permanent error", err)
		}
	}
}
