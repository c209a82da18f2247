package loadtest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want Latency
	}{
		{"an empty set summarises to zeros", nil, Latency{}},
		{"negative values count as missing and are left out", []float64{-1, 2, -1},
			Latency{Count: 1, Missing: 2, Min: 2, P50: 2, P95: 2, P99: 2, Max: 2, Mean: 2}},
		{"percentiles use the nearest rank of one to a hundred", seq(100),
			Latency{Count: 100, Min: 1, P50: 50, P95: 95, P99: 99, Max: 100, Mean: 50.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, summarize(tt.in)); diff != "" {
				t.Errorf("summarize (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTier(t *testing.T) {
	for in, want := range map[string]int{"1k": 1000, "10K": 10000, "100k": 100000, "250": 250, "1m": 1000000} {
		if got, err := ParseTier(in); err != nil || got != want {
			t.Errorf("ParseTier(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "k", "-3k", "ten"} {
		if _, err := ParseTier(in); err == nil {
			t.Errorf("ParseTier(%q) succeeded; want an error", in)
		}
	}
}

func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[n-1-i] = float64(i + 1)
	}
	return out
}
