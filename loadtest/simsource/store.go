package simsource

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Options size a Source.
type Options struct {
	// Objects is how many objects exist at the start, over Namespaces
	// namespaces (object i lives in namespace (i/4) % Namespaces).
	Objects, Namespaces int
	// Tier is the value of every object's TierLabel.
	Tier string
	// EventLog is how many recent events a watch can resume from (default
	// 100,000); a watch from an older resourceVersion gets 410 Gone and its
	// informer lists again.
	EventLog int
	// BookmarkInterval is how often a watch that asked for bookmarks gets
	// one (default 5s).
	BookmarkInterval time.Duration
	// WatchBuffer is how many events a watch may lag behind before the
	// source ends it (default 10,000); its informer watches again from
	// its last resourceVersion.
	WatchBuffer int
}

// ErrNotFound is returned by a change of an object that does not exist.
var ErrNotFound = errors.New("simsource: no such object")

// event is one change: object i reached st (st.rv is its resourceVersion).
type event struct {
	typ watch.EventType
	i   int
	st  objState
}

// Source holds the simulated cluster's state: the generated objects and
// the changes made to them.
type Source struct {
	opts    Options
	created time.Time

	mu        sync.RWMutex
	rv        uint64 // the latest resourceVersion
	total     int    // object indexes handed out (Objects plus added)
	states    map[int]objState
	log       []event // recent events, oldest first
	compacted uint64  // a watch must start at or after this resourceVersion
	watchers  map[*watcher]struct{}

	protobufResponses atomic.Int64
}

// ProtobufResponses counts the responses written as protobuf.
func (s *Source) ProtobufResponses() int64 { return s.protobufResponses.Load() }

// New returns a Source of o.Objects objects; object i has resourceVersion
// i+1 until it changes.
func New(o Options) *Source {
	if o.Namespaces < 1 {
		o.Namespaces = 1
	}
	if o.EventLog <= 0 {
		o.EventLog = 100000
	}
	if o.BookmarkInterval <= 0 {
		o.BookmarkInterval = 5 * time.Second
	}
	if o.WatchBuffer <= 0 {
		o.WatchBuffer = 10000
	}
	rv := uint64(max(o.Objects, 0)) + 1
	return &Source{opts: o, created: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), rv: rv, compacted: rv,
		total: o.Objects, states: map[int]objState{}, watchers: map[*watcher]struct{}{}}
}

// Options are the source's settings.
func (s *Source) Options() Options { return s.opts }

func (s *Source) namespaceOf(i int) string {
	return NamespaceName((i / len(Kinds)) % s.opts.Namespaces)
}

// state returns object i's state and whether it exists; s.mu is held.
func (s *Source) state(i int) (objState, bool) {
	if i < 0 || i >= s.total {
		return objState{}, false
	}
	st, ok := s.states[i]
	if !ok {
		st = objState{rv: uint64(i) + 1}
	}
	return st, !st.deleted
}

// Len is the number of objects that exist now.
func (s *Source) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := s.total
	for _, st := range s.states {
		if st.deleted {
			n--
		}
	}
	return n
}

// ResourceVersion is the latest resourceVersion.
func (s *Source) ResourceVersion() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rv
}

// Object returns object i as it is now, and whether it exists.
func (s *Source) Object(i int) (runtime.Object, bool) {
	s.mu.RLock()
	st, ok := s.state(i)
	s.mu.RUnlock()
	if !ok {
		return nil, false
	}
	return s.object(i, st), true
}

// SetSeq sets object i's SeqAnnotation to seq: a MODIFIED event.
func (s *Source) SetSeq(i int, seq string) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.state(i)
	if !ok {
		return 0, fmt.Errorf("%w: %d", ErrNotFound, i)
	}
	st.seq = seq
	return s.commit(watch.Modified, i, st), nil
}

// Delete deletes object i: a DELETED event.
func (s *Source) Delete(i int) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.state(i)
	if !ok {
		return 0, fmt.Errorf("%w: %d", ErrNotFound, i)
	}
	st.deleted = true
	return s.commit(watch.Deleted, i, st), nil
}

// Add creates the next object (index Objects, then Objects+1, ...): an
// ADDED event. It returns the new object's index.
func (s *Source) Add() (int, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.total
	s.total++
	return i, s.commit(watch.Added, i, objState{})
}

// commit gives st the next resourceVersion, stores it, logs the event and
// hands it to every watch; s.mu is held.
func (s *Source) commit(typ watch.EventType, i int, st objState) uint64 {
	s.rv++
	st.rv = s.rv
	s.states[i] = st
	ev := event{typ: typ, i: i, st: st}
	if len(s.log) >= s.opts.EventLog {
		drop := len(s.log) / 2
		s.compacted = s.log[drop-1].st.rv
		s.log = append(s.log[:0], s.log[drop:]...)
	}
	s.log = append(s.log, ev)
	for w := range s.watchers {
		select {
		case w.events <- ev:
		default: // too far behind: its client watches again
			delete(s.watchers, w)
			close(w.lagged)
		}
	}
	return st.rv
}

// filter selects the objects of a list or watch.
type filter struct {
	kind      int    // index in Kinds
	namespace string // "" for all
	labels    labels.Selector
	fields    fields.Selector
}

func (f filter) matches(s *Source, i int) bool {
	if i%len(Kinds) != f.kind {
		return false
	}
	ns := s.namespaceOf(i)
	if f.namespace != "" && ns != f.namespace {
		return false
	}
	if f.labels != nil && !f.labels.Empty() && !f.labels.Matches(labels.Set(objectLabels(i, s.opts.Tier))) {
		return false
	}
	if f.fields != nil && !f.fields.Empty() && !f.fields.Matches(fields.Set{"metadata.name": Name(i), "metadata.namespace": ns}) {
		return false
	}
	return true
}

// cursor walks the indexes of f's kind (and namespace) from position j:
// object 4j+kind, the j-th of the kind.
func (f filter) index(s *Source, j int) int { return len(Kinds)*j + f.kind }

// page returns up to limit (0: no limit) objects matching f from position
// j on, the position after the last one examined, and whether the walk
// reached the end.
func (s *Source) page(f filter, j, limit int) (items []runtime.Object, next int, done bool) {
	nsIdx := -1
	if f.namespace != "" {
		if _, err := fmt.Sscanf(f.namespace, "load-%04d", &nsIdx); err != nil || NamespaceName(nsIdx) != f.namespace || nsIdx >= s.opts.Namespaces {
			return nil, j, true
		}
	}
	const chunk = 1000 // objects examined per hold of the lock
	for {
		s.mu.RLock()
		total := s.total
		var states []objState
		var idx []int
		for n := 0; n < chunk && (limit == 0 || len(idx) < limit-len(items)); j++ {
			if nsIdx >= 0 && j%s.opts.Namespaces != nsIdx {
				// Skip to the next position in the namespace.
				j += (nsIdx - j%s.opts.Namespaces + s.opts.Namespaces) % s.opts.Namespaces
				j--
				continue
			}
			i := f.index(s, j)
			if i >= total {
				break
			}
			n++
			if st, ok := s.state(i); ok && f.matches(s, i) {
				states, idx = append(states, st), append(idx, i)
			}
		}
		s.mu.RUnlock()
		for k, i := range idx {
			items = append(items, s.object(i, states[k]))
		}
		if f.index(s, j) >= total {
			return items, j, true
		}
		if limit > 0 && len(items) >= limit {
			return items, j, false
		}
	}
}
