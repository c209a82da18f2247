package parts_test

import (
	"testing"

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
