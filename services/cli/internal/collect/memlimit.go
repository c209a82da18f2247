package collect

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// softFloor is the smallest soft memory limit a collection sets: with it,
// collecting 10,000 Deployments peaks near 65 MiB resident instead of 72
// (GOGC's target lets the heap double past the live rows), at no measurable
// CPU cost (docs/cli.md).
const softFloor = 40 << 20

// softLimit is a soft memory limit (debug.SetMemoryLimit) that follows the
// live heap: max(softFloor, 2 × live heap), raised after every listed page.
// A fixed limit below the live heap would make the GC run without pause on
// a big cluster; twice the live heap is what GOGC=100 allows anyway, so the
// limit only binds while the heap is small. A GOMEMLIMIT the user set is
// left alone.
type softLimit struct {
	mu      sync.Mutex
	prev    int64
	limit   int64
	samples []metrics.Sample
}

// newSoftLimit sets the floor and returns the limit, or nil when
// GOMEMLIMIT is set.
func newSoftLimit() *softLimit {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return nil
	}
	s := &softLimit{limit: softFloor, samples: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	s.prev = debug.SetMemoryLimit(softFloor)
	return s
}

// adjust raises the limit to twice the live heap when that is higher.
func (s *softLimit) adjust() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	metrics.Read(s.samples)
	if s.samples[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	live := s.samples[0].Value.Uint64()
	if live > math.MaxInt64/2 {
		return
	}
	if want := 2 * int64(live); want > s.limit {
		s.limit = want
		debug.SetMemoryLimit(want)
	}
}

// restore puts back the limit found (the process's default, normally).
func (s *softLimit) restore() {
	if s != nil {
		debug.SetMemoryLimit(s.prev)
	}
}
