package answer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
)

// ErrNotFound is returned when an inventory has no history, or no revision
// matches a Selector.
var ErrNotFound = errors.New("not found in the history")

// Revision is one revision of an inventory: the first event kept for it
// (periodic re-exports repeat a revision, replays are not history), and
// what it changed since the revision before it.
type Revision struct {
	// Event is the revision's event.
	Event *busv1.SnapshotEvent
	// Added, Changed and Removed count the rows that changed since the
	// previous revision kept.
	Added, Changed, Removed int
}

// Reader reads inventories' histories. It is safe for concurrent use.
type Reader struct {
	js     jetstream.JetStream
	loader *history.Loader

	mu     sync.Mutex
	counts map[countKey]counts
}

type countKey struct {
	inv      busv1.NamespacedName
	revision uint64
	checksum string
}

type counts struct{ added, changed, removed int }

// maxCounts bounds the memory of remembered change counts: past it the
// cache starts again.
const maxCounts = 100_000

// NewReader returns a Reader with a chunk cache of cacheBytes (see
// history.NewLoader).
func NewReader(js jetstream.JetStream, cacheBytes int64) *Reader {
	return &Reader{js: js, loader: history.NewLoader(js, cacheBytes), counts: map[countKey]counts{}}
}

// Inventories returns the inventories of namespace that have events on the
// snapshot stream.
func (r *Reader) Inventories(ctx context.Context, namespace string) ([]busv1.NamespacedName, error) {
	s, err := r.js.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		return nil, fmt.Errorf("open stream %s: %w", bus.StreamSnapshots, err)
	}
	filter := bus.SnapshotSubject(busv1.NamespacedName{Namespace: namespace, Name: "x"})
	filter = filter[:len(filter)-1] + "*"
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		return nil, fmt.Errorf("list inventories of %s: %w", namespace, err)
	}
	out := make([]busv1.NamespacedName, 0, len(info.State.Subjects))
	for subj := range info.State.Subjects {
		inv, err := bus.ParseSnapshotSubject(subj)
		if err != nil {
			continue // not one of ours: nothing to show
		}
		out = append(out, inv)
	}
	return out, nil
}

// Revisions returns inv's revisions, oldest first, without their change
// counts (Count); ErrNotFound when it has none.
func (r *Reader) Revisions(ctx context.Context, inv busv1.NamespacedName) ([]Revision, error) {
	evs, err := history.Events(ctx, r.js, inv)
	if err != nil {
		return nil, err
	}
	out := make([]Revision, 0, len(evs))
	seen := map[uint64]bool{}
	for i := range evs {
		ev := &evs[i].Event
		if ev.Replay != nil || seen[ev.Revision] {
			continue
		}
		seen[ev.Revision] = true
		out = append(out, Revision{Event: ev})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("history of %s: %w", inv, ErrNotFound)
	}
	return out, nil
}

// Count fills in the change counts of revs[i] (Revisions leaves them
// zero: a page counts only what it shows).
func (r *Reader) Count(ctx context.Context, revs []Revision, i int) error {
	var prev *busv1.SnapshotEvent
	if i > 0 {
		prev = revs[i-1].Event
	}
	c, err := r.changeCounts(ctx, prev, revs[i].Event)
	if err != nil {
		return err
	}
	revs[i].Added, revs[i].Changed, revs[i].Removed = c.added, c.changed, c.removed
	return nil
}

// changeCounts counts what cur changed since prev: from the checksums, the
// item counts and cur's delta when it applies to prev, from both
// revisions' rows otherwise.
func (r *Reader) changeCounts(ctx context.Context, prev, cur *busv1.SnapshotEvent) (counts, error) {
	switch {
	case prev == nil:
		return counts{added: cur.ItemCount}, nil
	case cur.Checksum == prev.Checksum:
		return counts{}, nil
	case cur.ItemCount == 0:
		return counts{removed: prev.ItemCount}, nil
	}
	key := countKey{cur.Inventory, cur.Revision, cur.Checksum}
	r.mu.Lock()
	c, ok := r.counts[key]
	r.mu.Unlock()
	if ok {
		return c, nil
	}
	d, err := r.delta(ctx, prev, cur)
	if err != nil {
		return counts{}, err
	}
	if d != nil {
		c.removed = len(d.Deletes)
		c.added = cur.ItemCount - prev.ItemCount + c.removed
		c.changed = len(d.Upserts) - c.added
	} else {
		before, err := r.Rows(ctx, prev)
		if err != nil {
			return counts{}, err
		}
		after, err := r.Rows(ctx, cur)
		if err != nil {
			return counts{}, err
		}
		for _, ch := range Compare(before, after) {
			switch ch.Change {
			case queryv1.ChangeAdded:
				c.added++
			case queryv1.ChangeRemoved:
				c.removed++
			default:
				c.changed++
			}
		}
	}
	r.mu.Lock()
	if len(r.counts) >= maxCounts {
		clear(r.counts)
	}
	r.counts[key] = c
	r.mu.Unlock()
	return c, nil
}

// delta returns cur's delta when it applies to prev, nil otherwise.
func (r *Reader) delta(ctx context.Context, prev, cur *busv1.SnapshotEvent) (*busv1.Delta, error) {
	if cur.Delta == nil && cur.DeltaRef == nil {
		return nil, nil
	}
	d, err := r.loader.Delta(ctx, cur)
	if err != nil {
		return nil, fmt.Errorf("read delta of %s revision %d: %w", cur.Inventory, cur.Revision, err)
	}
	if d == nil || d.BaseRevision != prev.Revision || d.BaseChecksum != prev.Checksum {
		return nil, nil
	}
	return d, nil
}

// Rows returns ev's rows in canonical order.
func (r *Reader) Rows(ctx context.Context, ev *busv1.SnapshotEvent) ([]busv1.Row, error) {
	env, err := r.loader.Envelope(ctx, ev)
	if err != nil {
		return nil, fmt.Errorf("read rows of %s revision %d: %w", ev.Inventory, ev.Revision, err)
	}
	return env.Items, nil
}

// Selector picks a revision: by number when Revision is set, else the
// latest published at or before At, else the latest.
type Selector struct {
	Revision uint64
	At       time.Time
}

// String describes s for errors.
func (s Selector) String() string {
	switch {
	case s.Revision > 0:
		return fmt.Sprintf("revision %d", s.Revision)
	case !s.At.IsZero():
		return "time " + s.At.UTC().Format(time.RFC3339Nano)
	}
	return "the latest revision"
}

// Select returns the index in revs of the revision s picks.
func Select(revs []Revision, s Selector) (int, error) {
	switch {
	case s.Revision > 0:
		for i := range revs {
			if revs[i].Event.Revision == s.Revision {
				return i, nil
			}
		}
	case !s.At.IsZero():
		for i := len(revs) - 1; i >= 0; i-- {
			if !revs[i].Event.CreatedAt.After(s.At) {
				return i, nil
			}
		}
	case len(revs) > 0:
		return len(revs) - 1, nil
	}
	return 0, fmt.Errorf("%s: %w", s, ErrNotFound)
}
