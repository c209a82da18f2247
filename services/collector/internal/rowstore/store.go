package rowstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"k8s.io/apimachinery/pkg/runtime/schema"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// Store writes rows to the rows bucket, skipping rewrites of unchanged rows.
type Store struct {
	maxValue int // Options.MaxValueBytes
	kv       jetstream.KeyValue
	pub      *Publisher
	ctx      context.Context // the Store's life: acks and retries stop with it
	now      func() time.Time
	observe  func(Write)

	slots    chan struct{} // one per write awaiting its ack: the window
	inflight chan flight   // writes awaiting their ack, in publish order
	pubMu    sync.Mutex    // held from registering a write to sending it, so a key's latest write is the last sent
	flushMu  sync.Mutex

	mu        sync.Mutex
	known     map[busv1.RowKey]uint64      // content hash the bus acknowledged; unknownHash when unsure
	pending   map[busv1.RowKey]write       // the latest write of each key not acknowledged yet
	failures  map[busv1.RowKey]int         // consecutive failed writes of a key, for the backoff
	counts    map[busv1.NamespacedName]int // rows per Target once the pending writes land
	total     int
	loaded    map[busv1.NamespacedName]bool // Targets whose rows were loaded (Load); nil: every Target's
	onFailure func(Failure)
}

// write is one put or delete of a row.
type write struct {
	msg  *nats.Msg // the write's identity: it is the latest while pending holds this msg
	hash uint64    // content hash of a put
	del  bool
	// gvk, namespace and name are the object's, for the Failure of a put.
	gvk             schema.GroupVersionKind
	namespace, name string
}

// Options tune a Store.
type Options struct {
	// Observe, when set, is told the outcome of every write once the bus
	// acknowledged it or it failed. It is called from the Store's ack
	// goroutine and must return quickly.
	Observe func(Write)
	// MaxValueBytes refuses a row whose stored value would be larger (the
	// rows bucket's MaxValueSize); zero checks nothing.
	MaxValueBytes int
	// All loads every row of the bucket at Open, for a Store that writes
	// every Target. Without it the Store holds only the Targets given to
	// Load, so that a collector replica keeps the rows of its shards only.
	All bool
}

// TooLargeError is a row too large for the rows bucket: it can never be
// written as it is.
type TooLargeError struct {
	// Bytes is the size of the row's stored value; Limit the largest allowed.
	Bytes, Limit int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("row of %d bytes is over the bus limit of %d bytes", e.Bytes, e.Limit)
}

// Write is the outcome of one row write.
type Write struct {
	// Delete is true for a delete, false for a put.
	Delete bool
	// Latency is the time from publishing the write to its outcome.
	Latency time.Duration
	// Err is why the write failed; nil when the bus stored it.
	Err error
}

// Failure is a put whose outcome is unknown (the bus rejected it, or its ack
// did not come): the caller must extract the object again and put its
// current content, after After.
type Failure struct {
	// Key is the row's key.
	Key busv1.RowKey
	// GVK, Namespace and Name are the object's (the row's kind and name).
	GVK             schema.GroupVersionKind
	Namespace, Name string
	// After is how long to wait before trying again (it grows with each
	// consecutive failure of the key).
	After time.Duration
}

// Open returns a Store writing to kv through pub until ctx ends. With
// o.All it first loads the keys and content hashes of every row already in
// kv; otherwise it holds no Target's rows until Load.
func Open(ctx context.Context, kv jetstream.KeyValue, pub *Publisher, o Options) (*Store, error) {
	s := &Store{kv: kv, pub: pub, ctx: ctx, now: time.Now, observe: o.Observe, maxValue: o.MaxValueBytes,
		slots: make(chan struct{}, pub.window), inflight: make(chan flight, pub.window),
		known: map[busv1.RowKey]uint64{}, pending: map[busv1.RowKey]write{},
		failures: map[busv1.RowKey]int{}, counts: map[busv1.NamespacedName]int{}}
	if !o.All {
		s.loaded = map[busv1.NamespacedName]bool{}
	} else if err := s.watchLoad(ctx, nil); err != nil {
		return nil, err
	}
	go s.reap()
	return s, nil
}

// watchLoad loads the rows of the keys matching filters (every key when
// nil) that kv holds now.
func (s *Store) watchLoad(ctx context.Context, filters []string) error {
	var w jetstream.KeyWatcher
	var err error
	if filters == nil {
		w, err = s.kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	} else {
		w, err = s.kv.WatchFiltered(ctx, filters, jetstream.IgnoreDeletes())
	}
	if err != nil {
		return fmt.Errorf("watch rows bucket %s: %w", s.kv.Bucket(), err)
	}
	defer func() { _ = w.Stop() }()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e := <-w.Updates():
			if e == nil { // every existing entry delivered
				return nil
			}
			s.mu.Lock()
			err := s.load(e)
			s.mu.Unlock()
			if err != nil {
				return err
			}
		}
	}
}

// load records one row entry; s.mu is held.
func (s *Store) load(e jetstream.KeyValueEntry) error {
	if bus.IsMarkerKey(e.Key()) {
		return nil // bus.RowsSyncedKey names no row
	}
	key, err := bus.ParseRowKey(e.Key())
	if err != nil {
		return fmt.Errorf("load rows: %w", err)
	}
	h, err := storedHash(e.Value())
	if err != nil {
		return fmt.Errorf("load row %s: %w", e.Key(), err)
	}
	s.countLocked(key, s.presentLocked(key), true)
	s.known[key] = h
	return nil
}

// OnFailure sets the function told about every failed put; call it before
// the first Put. It is called from the Store's ack goroutine and must
// neither block nor wait for anything that may wait for a write (a lock
// held around Put or Delete): writes wait for this goroutine to free the
// window.
func (s *Store) OnFailure(f func(Failure)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onFailure = f
}

// presentLocked reports whether the key has a row once its pending write
// lands; s.mu is held.
func (s *Store) presentLocked(key busv1.RowKey) bool {
	if w, ok := s.pending[key]; ok {
		return !w.del
	}
	_, ok := s.known[key]
	return ok
}

// holdsLocked reports whether the key's row has content hash h once its
// pending write lands; s.mu is held.
func (s *Store) holdsLocked(key busv1.RowKey, h uint64) bool {
	if w, ok := s.pending[key]; ok {
		return !w.del && w.hash == h
	}
	k, ok := s.known[key]
	return ok && k == h
}

// countLocked moves key's row from present was to present now in the
// counts; s.mu is held.
func (s *Store) countLocked(key busv1.RowKey, was, now bool) {
	if was == now {
		return
	}
	t := targetOf(key)
	switch {
	case now:
		s.counts[t]++
		s.total++
	case s.counts[t] <= 1:
		delete(s.counts, t)
		s.total--
	default:
		s.counts[t]--
		s.total--
	}
}

func targetOf(k busv1.RowKey) busv1.NamespacedName {
	return busv1.NamespacedName{Namespace: k.TargetNamespace, Name: k.TargetName}
}
