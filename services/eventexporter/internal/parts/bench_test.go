package parts_test

import (
	"context"
	"encoding/json"
	"iter"
	"testing"

	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/snapshot"

	"kollect.dev/kollect/services/eventexporter/internal/parts"
)

func BenchmarkSplit10kRows(b *testing.B) {
	env := envelope(&testing.T{}, 10_000, 40)
	b.ResetTimer()
	for range b.N {
		if _, err := parts.Split(env, 1_000_000); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(10_000*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkStream10kRows streams the snapshot of BenchmarkSplit10kRows
// from its rows' canonical JSON, encoded beforehand as the bus holds it, so
// that the time is Stream's own: two passes, one part held.
func BenchmarkStream10kRows(b *testing.B) {
	env := envelope(&testing.T{}, 10_000, 40)
	rows := make([]json.RawMessage, len(env.Items))
	for i := range env.Items {
		raw, err := snapshot.Canonical(&env.Items[i])
		if err != nil {
			b.Fatal(err)
		}
		rows[i] = raw
	}
	s := sinktest.Streamed(sink.Snapshot{Envelope: env})
	s.Stream = func(context.Context) iter.Seq2[json.RawMessage, error] {
		return func(yield func(json.RawMessage, error) bool) {
			for _, r := range rows {
				if !yield(r, nil) {
					return
				}
			}
		}
	}
	b.ResetTimer()
	for range b.N {
		if err := parts.Stream(context.Background(), s, 1_000_000, func(parts.Part) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(10_000*b.N)/b.Elapsed().Seconds(), "rows/s")
}
