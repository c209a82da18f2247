package rowstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// Store writes rows to the rows bucket, skipping rewrites of unchanged rows.
type Store struct {
	kv  jetstream.KeyValue
	now func() time.Time

	mu     sync.Mutex
	known  map[busv1.RowKey]uint64      // row content hash of what is on the bus
	counts map[busv1.NamespacedName]int // rows per Target, for Count
}

// Open loads the keys and content hashes of every row already in kv.
func Open(ctx context.Context, kv jetstream.KeyValue) (*Store, error) {
	s := &Store{kv: kv, now: time.Now, known: map[busv1.RowKey]uint64{}, counts: map[busv1.NamespacedName]int{}}
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("watch rows bucket %s: %w", kv.Bucket(), err)
	}
	defer func() { _ = w.Stop() }()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case e := <-w.Updates():
			if e == nil { // every existing entry delivered
				return s, nil
			}
			if err := s.load(e); err != nil {
				return nil, err
			}
		}
	}
}

func (s *Store) load(e jetstream.KeyValueEntry) error {
	key, err := bus.ParseRowKey(e.Key())
	if err != nil {
		return fmt.Errorf("load rows: %w", err)
	}
	var entry busv1.RowEntry
	if err := json.Unmarshal(e.Value(), &entry); err != nil {
		return fmt.Errorf("load row %s: %w", e.Key(), err)
	}
	h, err := hashRow(entry.Row)
	if err != nil {
		return err
	}
	s.set(key, h)
	return nil
}

// set records key's hash; s.mu is held, or s is not shared yet.
func (s *Store) set(key busv1.RowKey, h uint64) {
	if _, ok := s.known[key]; !ok {
		s.counts[targetOf(key)]++
	}
	s.known[key] = h
}

func targetOf(k busv1.RowKey) busv1.NamespacedName {
	return busv1.NamespacedName{Namespace: k.TargetNamespace, Name: k.TargetName}
}

// Put writes row unless the bus already holds the same content. It reports
// whether it wrote.
func (s *Store) Put(ctx context.Context, row busv1.Row, targetGeneration int64) (bool, error) {
	h, err := hashRow(row)
	if err != nil {
		return false, err
	}
	key := row.Key()
	s.mu.Lock()
	old, ok := s.known[key]
	s.mu.Unlock()
	if ok && old == h {
		return false, nil
	}
	b, err := json.Marshal(busv1.RowEntry{Row: row, TargetGeneration: targetGeneration, ObservedAt: s.now().UTC()})
	if err != nil {
		return false, fmt.Errorf("encode row %s: %w", bus.RowKey(key), err)
	}
	if _, err := s.kv.Put(ctx, bus.RowKey(key), b); err != nil {
		return false, fmt.Errorf("put row %s: %w", bus.RowKey(key), err)
	}
	s.mu.Lock()
	s.set(key, h)
	s.mu.Unlock()
	return true, nil
}

// Delete removes the row of key, if the bus holds one. It reports whether it
// deleted.
func (s *Store) Delete(ctx context.Context, key busv1.RowKey) (bool, error) {
	s.mu.Lock()
	_, ok := s.known[key]
	s.mu.Unlock()
	if !ok {
		return false, nil
	}
	if err := s.kv.Delete(ctx, bus.RowKey(key)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return false, fmt.Errorf("delete row %s: %w", bus.RowKey(key), err)
	}
	s.mu.Lock()
	if _, ok := s.known[key]; ok {
		delete(s.known, key)
		if t := targetOf(key); s.counts[t] <= 1 {
			delete(s.counts, t)
		} else {
			s.counts[t]--
		}
	}
	s.mu.Unlock()
	return true, nil
}

// Keys returns the keys of every row of one Target (targetNamespace empty for
// a ClusterTarget).
func (s *Store) Keys(targetNamespace, targetName string) []busv1.RowKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []busv1.RowKey
	for k := range s.known {
		if k.TargetNamespace == targetNamespace && k.TargetName == targetName {
			out = append(out, k)
		}
	}
	return out
}

// Count returns the number of rows of one Target (targetNamespace empty for a
// ClusterTarget).
func (s *Store) Count(targetNamespace, targetName string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[busv1.NamespacedName{Namespace: targetNamespace, Name: targetName}]
}

// Targets returns every Target that has at least one row, in no particular
// order; Namespace is empty for ClusterTargets.
func (s *Store) Targets() []busv1.NamespacedName {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]busv1.NamespacedName, 0, len(s.counts))
	for t := range s.counts {
		out = append(out, t)
	}
	return out
}

// Len returns the number of rows on the bus.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.known)
}

// hashRow hashes the row's canonical JSON (encoding/json sorts map keys).
func hashRow(r busv1.Row) (uint64, error) {
	h := fnv.New64a()
	if err := json.NewEncoder(h).Encode(r); err != nil {
		return 0, fmt.Errorf("hash row %s: %w", bus.RowKey(r.Key()), err)
	}
	return h.Sum64(), nil
}
