package loadtest

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"
)

// busTotal is the busBytes series of the sum over every stream.
const busTotal = "total"

// sampleStorage records the bytes every JetStream stream stores (the
// buckets, KV_<name>, and object stores, OBJ_<name>, included) and their
// sum: what the bus keeps on disk or in memory at t.
func (s *sampler) sampleStorage(ctx context.Context, t float64) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	l := s.js.ListStreams(ctx)
	sums := map[string]float64{}
	var total float64
	replicas := map[int]int{}
	for info := range l.Info() {
		replicas[info.Config.Replicas]++
		b := float64(info.State.Bytes)
		sums[info.Config.Name] = b
		total += b
	}
	if l.Err() != nil {
		return // a partial listing would under-report the total
	}
	sums[busTotal] = total
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streamReplicas = replicas
	for k, v := range sums {
		s.busBytes[k] = append(s.busBytes[k], Point{t, v})
	}
}

// loadavg3 reads the 1, 5 and 15-minute load averages.
func loadavg3() ([3]float64, bool) {
	var l [3]float64
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return l, false
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return l, false
	}
	for i := range l {
		if l[i], err = strconv.ParseFloat(f[i], 64); err != nil {
			return l, false
		}
	}
	return l, true
}

// maxIn returns the largest value of pts with from <= T <= to, and false
// when none falls in the window.
func maxIn(pts []Point, from, to float64) (float64, bool) {
	var m float64
	found := false
	for _, p := range pts {
		if p.T >= from && p.T <= to && (!found || p.V > m) {
			m, found = p.V, true
		}
	}
	return m, found
}

// lastIn returns the last value of pts with T <= to.
func lastIn(pts []Point, to float64) float64 {
	var v float64
	for _, p := range pts {
		if p.T <= to {
			v = p.V
		}
	}
	return v
}
