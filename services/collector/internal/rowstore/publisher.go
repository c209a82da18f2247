package rowstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Defaults of NewPublisher's settings.
const (
	// DefaultWindow is the most row writes awaiting their ack.
	DefaultWindow = 4096
	// DefaultAckTimeout is how long a row write waits for its ack.
	DefaultAckTimeout = 10 * time.Second
)

// Retry backoff of a key whose writes keep failing.
const (
	retryBase = 100 * time.Millisecond
	retryMax  = 30 * time.Second
)

// Publisher is the JetStream context Stores publish rows with: one per
// connection, shared by the Stores of successive leadership terms so that
// its ack subscription is made once.
type Publisher struct {
	js     jetstream.JetStream
	window int
}

// NewPublisher returns a Publisher on nc whose Stores keep at most window
// writes awaiting their ack; a write not acknowledged within ackTimeout
// counts as failed.
func NewPublisher(nc *nats.Conn, window int, ackTimeout time.Duration) (*Publisher, error) {
	if window < 1 || ackTimeout <= 0 {
		return nil, fmt.Errorf("row publisher: window %d and ack timeout %v must be positive", window, ackTimeout)
	}
	// The window is enforced per Store; the client's own limit leaves room
	// for the late acks of a previous term's Store.
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(2*window),
		jetstream.WithPublishAsyncTimeout(ackTimeout))
	if err != nil {
		return nil, fmt.Errorf("open JetStream for row writes: %w", err)
	}
	return &Publisher{js: js, window: window}, nil
}

// flight is a write awaiting its ack.
type flight struct {
	fut  jetstream.PubAckFuture
	key  busv1.RowKey
	msg  *nats.Msg
	del  bool
	sent time.Time
}

// reap settles the writes in publish order as their acks or errors come
// (every one comes: the Publisher times acks out), until the Store's
// context ends.
func (s *Store) reap() {
	for {
		select {
		case <-s.ctx.Done():
			return
		case f := <-s.inflight:
			var err error
			select {
			case <-f.fut.Ok():
			case err = <-f.fut.Err():
			case <-s.ctx.Done():
				return
			}
			s.settle(f, err)
			<-s.slots
		}
	}
}

// settle applies the outcome of f, if f is still the latest write of its
// key: an ack makes it what the bus holds; a failed put makes the key
// unsure and is reported; a failed delete is sent again after a backoff.
func (s *Store) settle(f flight, err error) {
	s.mu.Lock()
	w, ok := s.pending[f.key]
	latest := ok && w.msg == f.msg
	var failure *Failure
	var retry time.Duration
	switch {
	case !latest:
	case err == nil:
		delete(s.pending, f.key)
		delete(s.failures, f.key)
		if w.del {
			delete(s.known, f.key)
		} else {
			s.known[f.key] = w.hash
		}
	default:
		s.failures[f.key]++
		retry = backoff(s.failures[f.key])
		if !w.del {
			s.unsureLocked(f.key)
			failure = &Failure{Key: f.key, GVK: w.gvk, Namespace: w.namespace, Name: w.name, After: retry}
		}
	}
	onFailure := s.onFailure
	s.mu.Unlock()
	if s.observe != nil {
		s.observe(Write{Delete: f.del, Latency: time.Since(f.sent), Err: err})
	}
	switch {
	case failure != nil && onFailure != nil:
		onFailure(*failure)
	case latest && err != nil && f.del:
		s.retryDeleteAfter(retry, f.key, f.msg)
	}
}

// retryDeleteAfter sends the delete of key again after d, unless a later
// write replaced msg by then.
func (s *Store) retryDeleteAfter(d time.Duration, key busv1.RowKey, msg *nats.Msg) {
	time.AfterFunc(d, func() {
		w := write{msg: deleteMsg(key), del: true}
		_, err := s.publish(s.ctx, key, w, func() bool {
			p, ok := s.pending[key]
			return ok && p.msg == msg
		})
		if err == nil || errors.Is(err, ErrClosed) || s.ctx.Err() != nil {
			return
		}
		// Not sent: w is the key's latest write, pending with no ack to
		// come.
		s.mu.Lock()
		s.failures[key]++
		d := backoff(s.failures[key])
		s.mu.Unlock()
		s.retryDeleteAfter(d, key, w.msg)
	})
}

// backoff is the wait before the next try of a key that failed n times in
// a row.
func backoff(n int) time.Duration {
	if n > 16 {
		return retryMax
	}
	return min(retryBase<<max(n-1, 0), retryMax)
}

// Flush waits until no write is awaiting its ack (writes sent meanwhile
// wait for it). A failed write may still be retried afterwards.
func (s *Store) Flush(ctx context.Context) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	held := 0
	defer func() {
		for range held {
			<-s.slots
		}
	}()
	for held < cap(s.slots) {
		if err := s.acquire(ctx); err != nil {
			return err
		}
		held++
	}
	return nil
}
