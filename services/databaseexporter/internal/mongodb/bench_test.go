package mongodb

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
)

// BenchmarkFullExport writes a 10,000-row snapshot with a new revision and
// changed rows each iteration: all upserts, the scoped delete and the state.
func BenchmarkFullExport(b *testing.B) {
	rows := 10000
	if n, err := strconv.Atoi(os.Getenv("KOLLECT_BENCH_ROWS")); err == nil {
		rows = n
	}
	srv := testenv.StartMongo(b)
	s := newSink(b, testBackend(), srv.URI, "bench", freshDatabase(), "rows")
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		items := make([]busv1.Row, rows)
		for j := range items {
			items[j] = podRow(fmt.Sprintf("pod-%05d", j), map[string]any{"image": "nginx:1.27", "iteration": float64(i),
				"labels": map[string]any{"app.kubernetes.io/name": "web"}})
		}
		snap := envelope(b, "bench", inv, uint64(i+1), items...)
		b.StartTimer()
		if err := s.Write(b.Context(), snap); err != nil {
			b.Fatalf("write: %v", err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
