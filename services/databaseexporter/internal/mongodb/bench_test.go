package mongodb

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// The benchmarks write inventories of KOLLECT_BENCH_ROWS rows (default
// 10,000) to FerretDB (testenv), or to the MongoDB-compatible server at
// KOLLECT_BENCH_MONGODB_URI when set (a real MongoDB, say), each into a
// database of its own. They report rows/s and, for the delta, ms per export.

// benchRows is the inventory size of the benchmarks.
func benchRows() int {
	if n, err := strconv.Atoi(os.Getenv("KOLLECT_BENCH_ROWS")); err == nil && n > 0 {
		return n
	}
	return 10000
}

// benchURI is the server the benchmarks write to.
func benchURI(b *testing.B) string {
	if uri := os.Getenv("KOLLECT_BENCH_MONGODB_URI"); uri != "" {
		return uri
	}
	return testenv.StartMongo(b).URI
}

// benchItems is an inventory of n Pods whose attributes carry iteration.
func benchItems(n, iteration int) []busv1.Row {
	items := make([]busv1.Row, n)
	for j := range items {
		items[j] = podRow(fmt.Sprintf("pod-%06d", j), map[string]any{"image": "nginx:1.27", "iteration": float64(iteration),
			"labels": map[string]any{"app.kubernetes.io/name": "web"}})
	}
	return items
}

// BenchmarkFirstExport writes the inventory into an empty collection each
// iteration: every row inserted, the state recorded.
func BenchmarkFirstExport(b *testing.B) {
	rows, uri := benchRows(), benchURI(b)
	snap := envelope(b, "bench", inv, 1, benchItems(rows, 0)...)
	for b.Loop() {
		b.StopTimer()
		s := newSink(b, testBackend(), uri, "bench", freshDatabase(), "rows")
		if err := s.Check(b.Context()); err != nil {
			b.Fatalf("check: %v", err)
		}
		b.StartTimer()
		if err := s.Write(b.Context(), snap); err != nil {
			b.Fatalf("write: %v", err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkFullExport writes a snapshot with a new revision and every row
// changed each iteration into the inventory the previous one wrote: all
// rows read back, deleted and inserted again, the state moved.
func BenchmarkFullExport(b *testing.B) {
	rows := benchRows()
	s := newSink(b, testBackend(), benchURI(b), "bench", freshDatabase(), "rows")
	if err := s.Write(b.Context(), envelope(b, "bench", inv, 1, benchItems(rows, 1)...)); err != nil {
		b.Fatalf("first write: %v", err)
	}
	i := 1
	for b.Loop() {
		b.StopTimer()
		i++
		snap := envelope(b, "bench", inv, uint64(i), benchItems(rows, i)...)
		b.StartTimer()
		if err := s.Write(b.Context(), snap); err != nil {
			b.Fatalf("write: %v", err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkOneRowChange exports a one-row change to the inventory, each
// iteration a new revision: as a delta (what the runtime hands over when
// the sink holds the base) and as a full export whose other rows are
// unchanged (after a gap in the deltas).
func BenchmarkOneRowChange(b *testing.B) {
	for _, mode := range []string{"delta", "full"} {
		b.Run(mode, func(b *testing.B) {
			rows := benchRows()
			s := newSink(b, testBackend(), benchURI(b), "bench", freshDatabase(), "rows")
			items := benchItems(rows, 0)
			prev := envelope(b, "bench", inv, 1, items...)
			if err := s.Write(b.Context(), prev); err != nil {
				b.Fatalf("first write: %v", err)
			}
			for b.Loop() {
				b.StopTimer()
				changed := podRow(items[0].Name, map[string]any{"image": fmt.Sprintf("nginx:%d", prev.Envelope.Revision)})
				items[0] = changed
				next := envelope(b, "bench", inv, prev.Envelope.Revision+1, items...)
				if mode == "delta" {
					next = withDelta(next, prev, []busv1.Row{changed})
					header := next
					header.Envelope.Items = nil
					header.Load = func(context.Context) (busv1.Envelope, error) {
						b.Fatal("the delta applies: the snapshot must not be loaded")
						return busv1.Envelope{}, nil
					}
					next = header
				}
				b.StartTimer()
				if err := s.WriteDelta(b.Context(), next); err != nil {
					b.Fatalf("write: %v", err)
				}
				prev = sink.Snapshot{Envelope: next.Envelope}
				prev.Envelope.Items = items
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/export")
		})
	}
}
