package replayer

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestAWaiterThatGivesUpLeavesTheQueue: a queued replay whose context ends
// (its KollectReplay deleted, the leader stepping down) holds no slot and
// is skipped; the next waiter gets the freed slot.
func TestAWaiterThatGivesUpLeavesTheQueue(t *testing.T) {
	s := newSlots(1, 1)
	ctx := t.Context()
	release, err := s.acquire(ctx, "a", func(string) { t.Error("the first replay queued") })
	if err != nil {
		t.Fatal(err)
	}
	gone, cancel := context.WithCancel(ctx)
	queued := make(chan string, 2)
	result := make(chan error, 1)
	go func() {
		_, err := s.acquire(gone, "b", func(why string) { queued <- why })
		result <- err
	}()
	<-queued
	next := make(chan func(), 1)
	go func() {
		r, err := s.acquire(ctx, "c", func(why string) { queued <- why })
		if err != nil {
			t.Error(err)
		}
		next <- r
	}()
	<-queued
	cancel()
	if err := <-result; !errors.Is(err, context.Canceled) {
		t.Fatalf("the waiter that gave up: %v", err)
	}
	release()
	select {
	case r := <-next:
		r()
	case <-time.After(10 * time.Second):
		t.Fatal("the freed slot did not go to the next waiter")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running != 0 || len(s.byNS) != 0 || len(s.queue) != 0 {
		t.Errorf("after every replay ended: %d running, by namespace %v, %d queued", s.running, s.byNS, len(s.queue))
	}
}
