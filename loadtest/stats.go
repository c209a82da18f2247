package loadtest

import (
	"math"
	"sort"
)

// Latency summarises a set of durations in seconds.
type Latency struct {
	Count   int     `json:"count"`
	Missing int     `json:"missing"`
	Min     float64 `json:"min"`
	P50     float64 `json:"p50"`
	P95     float64 `json:"p95"`
	P99     float64 `json:"p99"`
	Max     float64 `json:"max"`
	Mean    float64 `json:"mean"`
}

// summarize returns the latency summary of xs; negative values count as
// missing.
func summarize(xs []float64) Latency {
	var ok []float64
	var l Latency
	for _, x := range xs {
		if x < 0 {
			l.Missing++
			continue
		}
		ok = append(ok, x)
	}
	sort.Float64s(ok)
	l.Count = len(ok)
	if l.Count == 0 {
		return l
	}
	var sum float64
	for _, x := range ok {
		sum += x
	}
	l.Min, l.Max, l.Mean = ok[0], ok[len(ok)-1], sum/float64(len(ok))
	l.P50, l.P95, l.P99 = percentile(ok, 0.50), percentile(ok, 0.95), percentile(ok, 0.99)
	return l
}

// percentile returns the nearest-rank percentile q of sorted xs.
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
