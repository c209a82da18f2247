package testenv

import (
	"context"
	"errors"
	"testing"
	"time"
)

// DefaultInterval is how long Poll, Eventually and EventuallyTrue wait
// between two checks unless Every says otherwise.
const DefaultInterval = 20 * time.Millisecond

// Option tunes how Poll, Eventually and EventuallyTrue wait.
type Option func(*waiter)

type waiter struct {
	every time.Duration
}

// Every makes the wait check every d instead of every DefaultInterval: a
// fast in-process check can poll every few milliseconds, one that dials a
// peer or lists a cluster every few hundred.
func Every(d time.Duration) Option {
	return func(w *waiter) { w.every = d }
}

// Poll calls check until it returns nil, then returns nil. When within has
// passed since the first call it returns check's last error instead, and
// when ctx ends first, ctx's cause. It is the one deadline loop of the tests:
// Eventually and EventuallyTrue fail the test with its error, and code that
// has no test (TestMain) or that reports on its own uses it directly.
func Poll(ctx context.Context, within time.Duration, check func() error, opts ...Option) error {
	w := waiter{every: DefaultInterval}
	for _, o := range opts {
		o(&w)
	}
	deadline := time.Now().Add(within)
	tick := time.NewTicker(w.every)
	defer tick.Stop()
	for {
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C:
		}
	}
}

// Eventually calls check until it returns nil, and fails the test with what
// and check's last error when within passes first (or the test's context
// ends).
func Eventually(t testing.TB, within time.Duration, what string, check func() error, opts ...Option) {
	t.Helper()
	if err := Poll(t.Context(), within, check, opts...); err != nil {
		t.Fatalf("%s: not within %s: %v", what, within, err)
	}
}

// EventuallyTrue is Eventually for a condition that has nothing to say
// while it does not hold.
func EventuallyTrue(t testing.TB, within time.Duration, what string, cond func() bool, opts ...Option) {
	t.Helper()
	err := Poll(t.Context(), within, func() error {
		if cond() {
			return nil
		}
		return errNotYet
	}, opts...)
	switch {
	case errors.Is(err, errNotYet):
		t.Fatalf("timed out waiting for %s (%s)", what, within)
	case err != nil:
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

var errNotYet = errors.New("the condition does not hold yet")
