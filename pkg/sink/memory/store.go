package memory

import (
	"slices"
	"sync"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// Stored is one inventory's projection in a Store.
type Stored struct {
	// Revision is the revision of the snapshot stored.
	Revision uint64
	// Checksum is its checksum.
	Checksum string
	// ExportedAt is the envelope's export time.
	ExportedAt time.Time
	// Rows are the rows stored, in canonical order.
	Rows []busv1.Row
}

// Write is one write a Store applied (writes it ignored are not logged).
type Write struct {
	// Cluster and Inventory name the projection written.
	Cluster   string
	Inventory busv1.NamespacedName
	// Revision and Checksum are the snapshot's.
	Revision uint64
	Checksum string
	// Delta is true when the write applied a delta.
	Delta bool
	// Deleted is true when the write removed the inventory.
	Deleted bool
	// Repair is true when the write repaired drift (sink.Snapshot.Repair).
	Repair bool
	// Streamed is true when Write read the rows as a stream
	// (sink.Snapshot.Rows) from a header-only snapshot.
	Streamed bool
}

type key struct {
	cluster string
	inv     busv1.NamespacedName
}

// Store is the storage behind memory sinks, safe for concurrent use.
type Store struct {
	mu    sync.Mutex
	token string
	data  map[key]Stored
	log   []Write
	fault func(sink.Snapshot) error
	// streams makes the store's sinks sink.RowStreamers.
	streams bool
}

// NewStore returns an empty store that accepts sinks presenting token (""
// accepts any).
func NewStore(token string) *Store {
	return &Store{token: token, data: map[key]Stored{}}
}

// FailWith makes every later write return f(snapshot) when it is not nil,
// before anything is stored; FailWith(nil) clears it.
func (s *Store) FailWith(f func(sink.Snapshot) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fault = f
}

// StreamRows makes the store's sinks read full writes as a stream
// (sink.RowStreamer) when on: Write then receives header-only snapshots
// and logs them as Streamed.
func (s *Store) StreamRows(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streams = on
}

// Get returns the projection of inv for cluster.
func (s *Store) Get(cluster string, inv busv1.NamespacedName) (Stored, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.data[key{cluster, inv}]
	v.Rows = slices.Clone(v.Rows)
	return v, ok
}

// Writes returns every write applied so far, in order.
func (s *Store) Writes() []Write {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Sink returns a sink writing to the store with token as its credential.
func (s *Store) Sink(token string) *Sink {
	return &Sink{store: s, token: token}
}

// Drop removes the projection of inv for cluster without logging a write,
// as an external system that lost its data would.
func (s *Store) Drop(cluster string, inv busv1.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.data, key{cluster, inv})
}

// Edit changes the projection of inv for cluster in place with f, without
// logging a write, as a user editing the external system by hand would; it
// does nothing when there is no projection.
func (s *Store) Edit(cluster string, inv busv1.NamespacedName, f func(*Stored)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.data[key{cluster, inv}]
	if !ok {
		return
	}
	v.Rows = slices.Clone(v.Rows)
	f(&v)
	s.data[key{cluster, inv}] = v
}
