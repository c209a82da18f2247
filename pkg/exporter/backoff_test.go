package exporter

import (
	"errors"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/sink"
)

func TestRetryDelayDoublesWithJitterUpToTheMaximum(t *testing.T) {
	for attempt, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second} {
		for range 50 {
			d := retryDelay(time.Second, 10*time.Second, attempt)
			if d < want/2 || d > want {
				t.Fatalf("attempt %d: delay %s outside [%s, %s]", attempt, d, want/2, want)
			}
		}
	}
}

func TestFailureDelayWaitsAsLongAsTheServerAsksUpToTheMaximum(t *testing.T) {
	plain := errors.New("503 Service Unavailable")
	for name, tc := range map[string]struct {
		err      error
		min, max time.Duration
	}{
		"no Retry-After: the backoff":              {plain, 500 * time.Millisecond, time.Second},
		"a longer Retry-After wins":                {sink.RetryAfter(plain, 7*time.Second), 7 * time.Second, 7 * time.Second},
		"a shorter Retry-After: the backoff":       {sink.RetryAfter(plain, time.Millisecond), 500 * time.Millisecond, time.Second},
		"a Retry-After past the maximum is capped": {sink.RetryAfter(plain, time.Hour), 10 * time.Second, 10 * time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			for range 20 {
				if d := failureDelay(time.Second, 10*time.Second, 0, tc.err); d < tc.min || d > tc.max {
					t.Fatalf("delay %s outside [%s, %s]", d, tc.min, tc.max)
				}
			}
		})
	}
}

func TestBreakerOpensAtTheThresholdAndClosesOnSuccess(t *testing.T) {
	now := time.Unix(1000, 0)
	b := &breaker{threshold: 2, cooldown: time.Minute}
	b.failure(now)
	if w := b.wait(now); w != 0 {
		t.Fatalf("open after one failure: %s", w)
	}
	b.failure(now)
	if w := b.wait(now.Add(10 * time.Second)); w != 50*time.Second {
		t.Fatalf("after the threshold the circuit waits %s, want 50s", w)
	}
	if w := b.wait(now.Add(2 * time.Minute)); w != 0 {
		t.Fatalf("still open after the cooldown: %s", w)
	}
	b.failure(now.Add(2 * time.Minute))
	if w := b.wait(now.Add(2 * time.Minute)); w != time.Minute {
		t.Fatalf("a failed half-open attempt waits %s, want 1m", w)
	}
	b.success()
	if w := b.wait(now.Add(2 * time.Minute)); w != 0 {
		t.Fatalf("open after a success: %s", w)
	}
}
