package kafka_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// benchRows returns n rows whose attributes all change with rev.
func benchRows(n int, rev uint64) []busv1.Row {
	rows := make([]busv1.Row, n)
	for i := range rows {
		r := row(fmt.Sprintf("uid-%05d", i), rev)
		r.Attributes["image"] = "registry.example.com/team-a/app:1.2.3"
		r.Attributes["node"] = fmt.Sprintf("node-%02d", i%50)
		rows[i] = r
	}
	return rows
}

// benchmarkMode writes b.N revisions of 10,000 rows that all changed.
func benchmarkMode(b *testing.B, mode string) {
	const n = 10_000
	broker := startKafka(b, kfake.DefaultNumPartitions(3))
	s := newSink(b, private, sinkConfig(b, spec(broker, "bench", mode)), nil)
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		sn := snap(b, web, uint64(i+1), benchRows(n, uint64(i+1))...)
		b.StartTimer()
		if err := s.Write(ctx, sn); err != nil {
			b.Fatalf("write: %v", err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkPerRow10kChangedRows(b *testing.B) { benchmarkMode(b, v1alpha1.KafkaModePerRow) }

func BenchmarkSnapshot10kRows(b *testing.B) { benchmarkMode(b, v1alpha1.KafkaModeSnapshot) }
