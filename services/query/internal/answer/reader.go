package answer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
)

// ErrNotFound is returned when an inventory has no history, or no revision
// matches a Selector.
var ErrNotFound = errors.New("not found in the history")

// Revision is one revision of an inventory: the index entry of the first
// event kept for it (periodic re-exports repeat a revision, replays are not
// history), and what it changed since the revision before it.
type Revision struct {
	// Entry is the revision's event as the index knows it: no envelope.
	Entry history.Entry
	// Added, Changed and Removed count the rows that changed since the
	// previous revision kept (Count fills them in).
	Added, Changed, Removed int
}

// Reader reads inventories' histories. It answers from each inventory's
// index (history.Scan: the heads of its events, never an envelope) and
// reads an event's rows, delta or manifest only for the revisions a request
// shows, one chunk of rows at a time. It is safe for concurrent use.
type Reader struct {
	js     jetstream.JetStream
	loader *history.Loader

	mu     sync.Mutex
	stream jetstream.Stream
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

// Revisions returns the revisions of the inventory inv whose uid is uid,
// oldest first, without their change counts (Count), from inv's index: no
// envelope is read. An event stamped with another uid belongs to an
// inventory of the same name that was deleted and is skipped; an unstamped
// event (a release before stamping) is kept, unless a later event numbers
// its revisions anew, which only a new inventory of the same name does: then
// only the events from there on are its. An empty uid (no such inventory
// now) keeps only unstamped events. ErrNotFound when none is left.
func (r *Reader) Revisions(ctx context.Context, inv busv1.NamespacedName, uid string) ([]Revision, error) {
	var out []Revision
	err := history.Scan(ctx, r.js, inv, func(e history.Entry) error {
		if e.Replay || (e.InventoryUID != "" && e.InventoryUID != uid) {
			return nil
		}
		if n := len(out); n > 0 {
			last := &out[n-1].Entry
			switch {
			case e.Revision == last.Revision && e.Checksum == last.Checksum:
				return nil // a periodic re-export of the latest revision
			case e.Revision <= last.Revision:
				out = out[:0] // numbered anew: what came before was another inventory's
			}
		}
		out = append(out, Revision{Entry: e})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("history of %s: %w", inv, ErrNotFound)
	}
	return out, nil
}

// Event reads the event of revision e of inv, the one event a request
// shows the rows of.
func (r *Reader) Event(ctx context.Context, inv busv1.NamespacedName, e history.Entry) (*busv1.SnapshotEvent, error) {
	s, err := r.snapshots(ctx)
	if err != nil {
		return nil, err
	}
	st, err := history.AtIn(ctx, s, inv, e.Sequence)
	if errors.Is(err, history.ErrNotFound) { // trimmed since the index was read
		return nil, fmt.Errorf("revision %d of %s: %w", e.Revision, inv, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	return &st.Event, nil
}

// BytesRead returns the object bytes (chunks, manifests, deltas) the
// Reader has read from the bus.
func (r *Reader) BytesRead() int64 { return r.loader.BytesRead.Load() }

// snapshots returns the snapshot stream, opened once.
func (r *Reader) snapshots(ctx context.Context) (jetstream.Stream, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stream == nil {
		s, err := r.js.Stream(ctx, bus.StreamSnapshots)
		if err != nil {
			return nil, fmt.Errorf("open stream %s: %w", bus.StreamSnapshots, err)
		}
		r.stream = s
	}
	return r.stream, nil
}

// Count fills in the change counts of revs[i] of inv (Revisions leaves
// them zero: a page counts only what it shows). It reads revs[i]'s delta,
// or when none applies compares the two revisions chunk by chunk, skipping
// the chunks they share.
func (r *Reader) Count(ctx context.Context, inv busv1.NamespacedName, revs []Revision, i int) error {
	var prev *history.Entry
	if i > 0 {
		prev = &revs[i-1].Entry
	}
	c, err := r.changeCounts(ctx, inv, prev, revs[i].Entry)
	if err != nil {
		return err
	}
	revs[i].Added, revs[i].Changed, revs[i].Removed = c.added, c.changed, c.removed
	return nil
}

// changeCounts counts what cur changed since prev: from the checksums, the
// item counts and cur's delta when it applies to prev, from both
// revisions' rows otherwise.
func (r *Reader) changeCounts(ctx context.Context, inv busv1.NamespacedName, prev *history.Entry, cur history.Entry) (counts, error) {
	switch {
	case prev == nil:
		return counts{added: cur.ItemCount}, nil
	case cur.Checksum == prev.Checksum:
		return counts{}, nil
	case cur.ItemCount == 0:
		return counts{removed: prev.ItemCount}, nil
	}
	key := countKey{inv, cur.Revision, cur.Checksum}
	r.mu.Lock()
	c, ok := r.counts[key]
	r.mu.Unlock()
	if ok {
		return c, nil
	}
	ev, err := r.Event(ctx, inv, cur)
	if err != nil {
		return counts{}, err
	}
	d, err := r.delta(ctx, *prev, ev)
	if err != nil {
		return counts{}, err
	}
	if d != nil {
		c.removed = len(d.Deletes)
		c.added = cur.ItemCount - prev.ItemCount + c.removed
		c.changed = len(d.Upserts) - c.added
	} else {
		before, err := r.Event(ctx, inv, *prev)
		if err != nil {
			return counts{}, err
		}
		if c, err = r.diffCounts(ctx, before, ev); err != nil {
			return counts{}, err
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

// maxDeltaBytes is the largest delta object read whole: a larger one (a
// change of most of a large inventory) is no cheaper than comparing the
// revisions chunk by chunk, which holds one chunk at a time.
const maxDeltaBytes = 8 << 20

// delta returns cur's delta when it applies to prev, nil otherwise.
func (r *Reader) delta(ctx context.Context, prev history.Entry, cur *busv1.SnapshotEvent) (*busv1.Delta, error) {
	if (cur.Delta == nil && cur.DeltaRef == nil) || (cur.DeltaRef != nil && cur.DeltaRef.Size > maxDeltaBytes) {
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
			if revs[i].Entry.Revision == s.Revision {
				return i, nil
			}
		}
	case !s.At.IsZero():
		for i := len(revs) - 1; i >= 0; i-- {
			if !revs[i].Entry.Time.After(s.At) {
				return i, nil
			}
		}
	case len(revs) > 0:
		return len(revs) - 1, nil
	}
	return 0, fmt.Errorf("%s: %w", s, ErrNotFound)
}
