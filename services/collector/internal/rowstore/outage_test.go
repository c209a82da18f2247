package rowstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

// outage breaks the rows bucket's stream in one way and repairs it.
type outage struct {
	name string
	// breaks returns the repair.
	breaks func(ctx context.Context, t *testing.T, n *testenv.NATS) (repair func())
}

const rowsStream = "KV_" + bus.BucketRows

// editStream applies edit to the rows stream's config and returns the
// function that restores it.
func editStream(ctx context.Context, t *testing.T, n *testenv.NATS, edit func(*jetstream.StreamConfig)) func() {
	t.Helper()
	st, err := n.JS.Stream(ctx, rowsStream)
	if err != nil {
		t.Fatal(err)
	}
	orig := st.CachedInfo().Config
	cfg := orig
	cfg.Subjects = append([]string(nil), orig.Subjects...)
	edit(&cfg)
	if _, err := n.JS.UpdateStream(ctx, cfg); err != nil {
		t.Fatalf("update the rows stream: %v", err)
	}
	return func() {
		if _, err := n.JS.UpdateStream(ctx, orig); err != nil {
			t.Errorf("restore the rows stream: %v", err)
		}
	}
}

func elsewhere(c *jetstream.StreamConfig) { c.Subjects = []string{"$KV.paused-rows.>"} }

var outages = []outage{
	{"the stream rejects the write", func(ctx context.Context, t *testing.T, n *testenv.NATS) func() {
		return editStream(ctx, t, n, func(c *jetstream.StreamConfig) { c.MaxMsgSize = 8 })
	}},
	{"no stream takes the subject", func(ctx context.Context, t *testing.T, n *testenv.NATS) func() {
		return editStream(ctx, t, n, elsewhere)
	}},
	{"the ack never comes", func(ctx context.Context, t *testing.T, n *testenv.NATS) func() {
		restore := editStream(ctx, t, n, elsewhere)
		// A subscriber that never replies: the publish has a responder,
		// so only the ack timeout ends it.
		sub, err := n.Conn.Subscribe("$KV."+bus.BucketRows+".>", func(*nats.Msg) {})
		if err != nil {
			t.Fatal(err)
		}
		return func() {
			if err := sub.Unsubscribe(); err != nil {
				t.Error(err)
			}
			restore()
		}
	}},
}

// requeuer plays the engine: it holds each object's current row and, when
// a put fails, puts the current row again after the backoff, one write of
// a key at a time as the engine's queue processes one object at a time.
type requeuer struct {
	ctx      context.Context
	s        *Store
	mu       sync.Mutex
	rows     map[busv1.RowKey]busv1.Row
	failures atomic.Int32
	errs     chan error
}

func newRequeuer(ctx context.Context, s *Store) *requeuer {
	q := &requeuer{ctx: ctx, s: s, rows: map[busv1.RowKey]busv1.Row{}, errs: make(chan error, 100)}
	s.OnFailure(q.failed)
	return q
}

// set is an object change: the row is extracted and put.
func (q *requeuer) set(r busv1.Row) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.rows[r.Key()] = r
	q.put(r)
}

func (q *requeuer) put(r busv1.Row) {
	if _, err := q.s.Put(q.ctx, r, 1, nil); err != nil && q.ctx.Err() == nil {
		select {
		case q.errs <- err:
		default:
		}
	}
}

func (q *requeuer) failed(f Failure) {
	q.failures.Add(1)
	time.AfterFunc(f.After, func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		if r, ok := q.rows[f.Key]; ok {
			q.put(r)
		}
	})
}

func (q *requeuer) check(t *testing.T) {
	t.Helper()
	select {
	case err := <-q.errs:
		t.Errorf("Put: %v", err)
	default:
	}
}

// history records, in order, the image of every value the bus stores for
// key ("-" for a delete).
func history(ctx context.Context, t *testing.T, kv jetstream.KeyValue, key busv1.RowKey) func() []string {
	t.Helper()
	w, err := kv.Watch(ctx, bus.RowKey(key))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Stop() })
	var mu sync.Mutex
	var seen []string
	go func() {
		for e := range w.Updates() {
			if e == nil {
				continue
			}
			img := "-"
			if e.Operation() == jetstream.KeyValuePut {
				var entry busv1.RowEntry
				if json.Unmarshal(e.Value(), &entry) == nil {
					img, _ = entry.Row.Attributes["image"].(string)
				}
			}
			mu.Lock()
			seen = append(seen, img)
			mu.Unlock()
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// lastIs checks that the history ends with want and that nothing else
// landed after want first did: a later write is never overtaken.
func lastIs(seen []string, want string) error {
	for i, v := range seen {
		if v != want {
			continue
		}
		for _, w := range seen[i:] {
			if w != want {
				return fmt.Errorf("history %v: %s landed after %s", seen, w, want)
			}
		}
		return nil
	}
	return fmt.Errorf("history %v: %s never landed", seen, want)
}

// openFast opens a Store whose writes time out quickly.
func openFast(ctx context.Context, t *testing.T, n *testenv.NATS, kv jetstream.KeyValue, o Options) *Store {
	t.Helper()
	pub, err := NewPublisher(n.Conn, DefaultWindow, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	o.All = true
	s, err := Open(ctx, kv, pub, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var errNotYet = errors.New("not yet")
