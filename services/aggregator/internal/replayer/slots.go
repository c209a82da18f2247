package replayer

import (
	"context"
	"fmt"
	"sync"
)

// slots bounds the replays running at once: at most total in the
// aggregator, at most perNamespace of one namespace (the KollectReplay's).
// A replay that finds no free slot waits in a queue; a freed slot goes to
// the earliest waiter whose namespace is under its own bound, so waiters
// are served in arrival order across namespaces and a namespace with many
// queued replays never holds more than perNamespace slots nor delays
// another namespace's replay beyond the slots it already holds (F2 of
// SECURITY-3).
type slots struct {
	total, perNamespace int

	mu      sync.Mutex
	running int
	byNS    map[string]int
	queue   []*slotWaiter // arrival order
}

// slotWaiter is one replay waiting for a slot; ready is closed when it got
// one.
type slotWaiter struct {
	ns      string
	ready   chan struct{}
	granted bool
}

func newSlots(total, perNamespace int) *slots {
	return &slots{total: total, perNamespace: perNamespace, byNS: map[string]int{}}
}

// acquire returns once a slot of namespace ns is held, with the function
// that frees it; or ctx's error, holding none. When the replay must wait,
// queued is called first (before acquire blocks) with why, one line naming
// the bound that is reached.
func (s *slots) acquire(ctx context.Context, ns string, queued func(why string)) (release func(), err error) {
	w := &slotWaiter{ns: ns, ready: make(chan struct{})}
	s.mu.Lock()
	s.queue = append(s.queue, w)
	s.dispatch()
	why := ""
	if !w.granted {
		why = s.why(w)
	}
	s.mu.Unlock()
	release = func() { s.release(ns) }
	if why == "" {
		return release, nil
	}
	queued(why)
	select {
	case <-w.ready:
		return release, nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.granted { // granted while ctx ended: give the slot back
		s.free(ns)
		s.dispatch()
	} else {
		s.remove(w)
	}
	return nil, ctx.Err()
}

// release frees a slot of ns and hands it on.
func (s *slots) release(ns string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free(ns)
	s.dispatch()
}

func (s *slots) free(ns string) {
	s.running--
	if s.byNS[ns]--; s.byNS[ns] <= 0 {
		delete(s.byNS, ns)
	}
}

// dispatch grants free slots to the waiters, in arrival order, skipping
// those whose namespace is at its bound. s.mu is held.
func (s *slots) dispatch() {
	kept := s.queue[:0]
	for _, w := range s.queue {
		if s.running < s.total && s.byNS[w.ns] < s.perNamespace {
			s.running++
			s.byNS[w.ns]++
			w.granted = true
			close(w.ready)
			continue
		}
		kept = append(kept, w)
	}
	clear(s.queue[len(kept):])
	s.queue = kept
}

func (s *slots) remove(w *slotWaiter) {
	for i, q := range s.queue {
		if q == w {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			return
		}
	}
}

// why says which bound keeps w waiting. s.mu is held.
func (s *slots) why(w *slotWaiter) string {
	ahead := 0
	for _, q := range s.queue {
		if q == w {
			break
		}
		ahead++
	}
	if s.byNS[w.ns] >= s.perNamespace {
		return fmt.Sprintf("queued: namespace %s already runs %d replays, the most one namespace may run at once "+
			"(the aggregator's --max-replays-per-namespace); replays waiting ahead of it: %d", w.ns, s.byNS[w.ns], ahead)
	}
	return fmt.Sprintf("queued: the aggregator already runs %d replays, the most it runs at once (--max-replays); "+
		"replays waiting ahead of it: %d", s.running, ahead)
}
