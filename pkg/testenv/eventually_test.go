package testenv_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/testenv"
)

func TestPollReturnsOnceTheCheckPasses(t *testing.T) {
	calls := 0
	err := testenv.Poll(t.Context(), time.Minute, func() error {
		if calls++; calls < 3 {
			return errors.New("not yet")
		}
		return nil
	}, testenv.Every(time.Millisecond))
	if err != nil || calls != 3 {
		t.Fatalf("Poll = %v after %d calls, want nil after 3", err, calls)
	}
}

func TestPollReturnsTheLastErrorAfterTheDeadline(t *testing.T) {
	calls := 0
	start := time.Now()
	err := testenv.Poll(t.Context(), 30*time.Millisecond, func() error {
		calls++
		return errors.New("still down")
	}, testenv.Every(5*time.Millisecond))
	if err == nil || err.Error() != "still down" {
		t.Fatalf("Poll = %v, want the check's last error", err)
	}
	if d := time.Since(start); d < 30*time.Millisecond || calls < 2 {
		t.Fatalf("Poll gave up after %s and %d calls, want at least 30ms and 2 calls", d, calls)
	}
}

func TestPollStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancelCause(t.Context())
	stopped := errors.New("the peer stopped")
	err := testenv.Poll(ctx, time.Hour, func() error {
		cancel(stopped)
		return errors.New("not yet")
	})
	if !errors.Is(err, stopped) {
		t.Fatalf("Poll = %v, want the context's cause", err)
	}
}
