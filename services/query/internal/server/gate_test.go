package server

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// TestTheGateLetsNoMoreThanItsSlotsIn runs 20 requests through a gate of
// 3: never more than 3 inside at once, and every one gets in while the
// others leave within the wait.
func TestTheGateLetsNoMoreThanItsSlotsIn(t *testing.T) {
	g := newGate(3, time.Minute)
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			release, err := g.enter(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			n := inside.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			runtime.Gosched() // let the others try while the slot is held
			inside.Add(-1)
			release()
		})
	}
	wg.Wait()
	if m := most.Load(); m > 3 || m < 1 {
		t.Errorf("%d requests inside at once, the gate has 3 slots", m)
	}
}

// TestAFullGateRefusesWith429AndRetryAfter fills a gate: one more request
// waits the gate's wait, then is refused with 429 naming the flag and a
// Retry-After; once a slot is released it gets in.
func TestAFullGateRefusesWith429AndRetryAfter(t *testing.T) {
	g := newGate(1, 20*time.Millisecond)
	release, err := g.enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = g.enter(context.Background())
	if !apierrors.IsTooManyRequests(err) {
		t.Fatalf("a request beyond the slots: %v, want 429", err)
	}
	if waited := time.Since(start); waited < 20*time.Millisecond {
		t.Errorf("refused after %s, before the wait", waited)
	}
	if s, ok := apierrors.SuggestsClientDelay(err); !ok || s != 1 {
		t.Errorf("Retry-After %d (%v), want 1", s, ok)
	}
	if msg := err.Error(); !strings.Contains(msg, "--max-concurrent-reads") {
		t.Errorf("the refusal does not name the flag: %s", msg)
	}
	release()
	release, err = g.enter(context.Background())
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	release()
}
