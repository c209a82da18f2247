package collector

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"kollect.dev/kollect/pkg/testenv"
)

func TestHealthzFailsWhileGivingUpAShardIsWedged(t *testing.T) {
	n := newNode(logr.Discard(), time.Second, func(bool) {})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.work(ctx, 3) }()
	testenv.Eventually(t, 10*time.Second, "the shard held", func() error {
		if n.heldCount() == 0 {
			return errors.New("not held")
		}
		return nil
	})
	if err := n.healthy(); err != nil {
		t.Fatalf("healthy while holding a shard: %v", err)
	}
	n.mu.Lock() // a term wedged while the shard is given up
	cancel()
	testenv.Eventually(t, 10*time.Second, "the shard being given up", func() error {
		n.leavingMu.Lock()
		defer n.leavingMu.Unlock()
		if _, ok := n.leaving[3]; !ok {
			return errors.New("not leaving")
		}
		n.leaving[3] = time.Now().Add(-2 * stuckAfter) // as if wedged that long
		return nil
	})
	if err := n.healthy(); err == nil {
		t.Error("healthy while giving up a shard has been stuck for twice the limit")
	}
	n.mu.Unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := n.healthy(); err != nil {
		t.Errorf("still unhealthy once the shard was given up: %v", err)
	}
}
