package exporter

import (
	"math/rand/v2"
	"sync"
	"time"

	"kollect.dev/kollect/pkg/sink"
)

// retryDelay returns the delay before retry attempt (0-based): initial
// doubled per attempt, capped at max, with "equal jitter" (a random point in
// the upper half) so that bindings failing together do not retry together.
func retryDelay(initial, max time.Duration, attempt int) time.Duration {
	d := initial
	for i := 0; i < attempt && d < max; i++ {
		d *= 2
	}
	d = min(d, max)
	return d/2 + rand.N(d/2+1) //nolint:gosec // G404: retry jitter needs no unpredictability
}

// failureDelay is the wait after a transient failure: the backoff delay, or
// longer when the sink's server asked for it (sink.RetryAfter), but never
// more than max.
func failureDelay(initial, ceiling time.Duration, attempt int, err error) time.Duration {
	return min(max(retryDelay(initial, ceiling, attempt), sink.RetryAfterOf(err)), ceiling)
}

// breaker is the circuit of one sink, shared by every binding of the sink:
// after threshold consecutive failures it opens for cooldown, during which
// the sink's bindings do not try; the first attempt after it (half-open)
// closes it on success or reopens it on failure.
type breaker struct {
	threshold int
	cooldown  time.Duration

	mu        sync.Mutex
	failures  int
	openUntil time.Time
}

// wait returns how long the circuit stays open, zero when closed.
func (b *breaker) wait(now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return max(b.openUntil.Sub(now), 0)
}

// failure counts a failure and opens the circuit at the threshold.
func (b *breaker) failure(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures++
	if b.failures >= b.threshold {
		b.openUntil = now.Add(b.cooldown)
	}
}

// success closes the circuit.
func (b *breaker) success() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures, b.openUntil = 0, time.Time{}
}
