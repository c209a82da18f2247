package rowstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// loadBatch is the most Targets one watch of the rows bucket filters on.
const loadBatch = 64

// Load reads the rows of targets (Namespace empty for a ClusterTarget) that
// the bucket holds, each Target's once until Forget: a collector replica
// loads the Targets of a shard when it takes the shard, before it writes
// any of their rows. A Store opened with Options.All holds every row
// already.
func (s *Store) Load(ctx context.Context, targets []busv1.NamespacedName) error {
	s.mu.Lock()
	if s.loaded == nil {
		s.mu.Unlock()
		return nil
	}
	var todo []busv1.NamespacedName
	for _, t := range targets {
		if !s.loaded[t] {
			todo = append(todo, t)
		}
	}
	s.mu.Unlock()
	for batch := range slices.Chunk(todo, loadBatch) {
		filters := make([]string, len(batch))
		for i, t := range batch {
			filters[i] = bus.RowKeyFilter(t.Namespace, t.Name)
		}
		if err := s.watchLoad(ctx, filters); err != nil {
			return err
		}
		s.mu.Lock()
		for _, t := range batch {
			s.loaded[t] = true
		}
		s.mu.Unlock()
	}
	return nil
}

// Forget drops what the Store holds of targets' rows: a collector replica
// forgets the Targets of a shard it gives up, once it stopped writing
// them. A write of theirs awaiting its ack is no longer retried; the
// replica that takes the shard next loads what the bucket holds.
func (s *Store) Forget(targets []busv1.NamespacedName) {
	if len(targets) == 0 {
		return
	}
	gone := make(map[busv1.NamespacedName]bool, len(targets))
	for _, t := range targets {
		gone[t] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.pending {
		if gone[targetOf(k)] {
			delete(s.pending, k)
			delete(s.failures, k)
		}
	}
	for k := range s.known {
		if gone[targetOf(k)] {
			delete(s.known, k)
			delete(s.failures, k)
		}
	}
	for t := range gone {
		s.total -= s.counts[t]
		delete(s.counts, t)
		if s.loaded != nil {
			delete(s.loaded, t)
		}
	}
}

// TargetsOnBus lists the Targets the bucket holds rows of, reading only
// the keys: a term starts with it so that the rows of a Target deleted
// while no replica watched (or with the config bucket lost) are found by
// whoever holds its shard. It holds one entry per Target, never the keys.
func (s *Store) TargetsOnBus(ctx context.Context) ([]busv1.NamespacedName, error) {
	lister, err := s.kv.ListKeys(ctx)
	if err != nil {
		if errors.Is(err, jetstream.ErrNoKeysFound) {
			return nil, nil
		}
		return nil, fmt.Errorf("list the keys of rows bucket %s: %w", s.kv.Bucket(), err)
	}
	defer func() { _ = lister.Stop() }()
	seen := map[busv1.NamespacedName]bool{}
	for k := range lister.Keys() {
		if key, err := bus.ParseRowKey(k); err == nil {
			seen[targetOf(key)] = true
		}
	}
	return slices.Collect(maps.Keys(seen)), nil
}
