package collector

import (
	"sync"

	"github.com/nats-io/nats.go"
)

// reconnects broadcasts NATS reconnects: Next returns a channel closed at
// the next reconnect.
type reconnects struct {
	mu sync.Mutex
	ch chan struct{}
}

func newReconnects() *reconnects { return &reconnects{ch: make(chan struct{})} }

// Next returns a channel closed at the next reconnect.
func (r *reconnects) Next() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ch
}

// handler is the nats.ReconnectHandler that fires the broadcast.
func (r *reconnects) handler(*nats.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	close(r.ch)
	r.ch = make(chan struct{})
}
