package answer

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
)

// Object picks the rows of one object: by UID when set, else by kind,
// namespace and name (and group when set), which follows an object across
// deletion and re-creation.
type Object struct {
	UID                          string
	Group, Kind, Namespace, Name string
}

// Matches reports whether row is one of o's.
func (o Object) Matches(row *busv1.Row) bool {
	return o.matches(row.UID, row.Group, row.Kind, row.Namespace, row.Name)
}

func (o Object) matches(uid, group, kind, namespace, name string) bool {
	if o.UID != "" {
		return uid == o.UID
	}
	return kind == o.Kind && name == o.Name && namespace == o.Namespace && (o.Group == "" || group == o.Group)
}

// Timeline returns o's changes in revs[from:to] of inv, oldest first,
// stopping after limit entries (0: no limit); next is the index of the
// first revision not read (to when all were). The state before revs[from]
// is read from revs[from-1], keeping only o's rows; later revisions are
// read through their deltas where they apply, row by row otherwise, and
// not at all when their checksum is the previous one's.
func (r *Reader) Timeline(ctx context.Context, inv busv1.NamespacedName, revs []Revision, from, to int, o Object, limit int) (entries []queryv1.TimelineEntry, next int, err error) {
	state := map[busv1.RowKey]*busv1.Row{}
	if from > 0 {
		ev, err := r.Event(ctx, inv, revs[from-1].Entry)
		if err != nil {
			return nil, 0, err
		}
		if state, err = r.match(ctx, ev, o); err != nil {
			return nil, 0, err
		}
	}
	for i := from; i < to; i++ {
		cur, err := r.advance(ctx, inv, revs, i, state, o)
		if err != nil {
			return nil, 0, err
		}
		e := revs[i].Entry
		for _, c := range compareMatched(state, cur) {
			entries = append(entries, queryv1.TimelineEntry{Revision: e.Revision, Time: metav1.NewTime(e.Time), RowChange: c})
		}
		state = cur
		if limit > 0 && len(entries) >= limit {
			return entries, i + 1, nil
		}
	}
	return entries, to, nil
}

// advance returns o's rows at revs[i] given its rows at revs[i-1] (state):
// through revs[i]'s delta when it applies, from its rows otherwise.
func (r *Reader) advance(ctx context.Context, inv busv1.NamespacedName, revs []Revision, i int, state map[busv1.RowKey]*busv1.Row, o Object) (map[busv1.RowKey]*busv1.Row, error) {
	if i > 0 && revs[i-1].Entry.Checksum == revs[i].Entry.Checksum {
		return state, nil
	}
	ev, err := r.Event(ctx, inv, revs[i].Entry)
	if err != nil {
		return nil, err
	}
	if i > 0 {
		d, err := r.delta(ctx, revs[i-1].Entry, ev)
		if err != nil {
			return nil, err
		}
		if d != nil {
			cur := make(map[busv1.RowKey]*busv1.Row, len(state))
			for k, v := range state {
				cur[k] = v
			}
			for _, k := range d.Deletes {
				delete(cur, k)
			}
			for j := range d.Upserts {
				if row := &d.Upserts[j]; o.Matches(row) {
					cur[row.Key()] = row
				} else {
					delete(cur, row.Key()) // renamed away from o
				}
			}
			return cur, nil
		}
	}
	return r.match(ctx, ev, o)
}

// match returns o's rows of ev, walking its rows one chunk at a time and
// decoding only o's.
func (r *Reader) match(ctx context.Context, ev *busv1.SnapshotEvent, o Object) (map[busv1.RowKey]*busv1.Row, error) {
	w, err := r.newWalker(ctx, ev)
	if err != nil {
		return nil, err
	}
	out := map[busv1.RowKey]*busv1.Row{}
	for {
		h, ok, err := w.peek(ctx)
		if err != nil || !ok {
			return out, err
		}
		if o.matches(h.UID, h.Group, h.Kind, h.Namespace, h.Name) {
			row, err := h.decode()
			if err != nil {
				return nil, err
			}
			out[row.Key()] = row
		}
		w.next()
	}
}

func compareMatched(before, after map[busv1.RowKey]*busv1.Row) []queryv1.RowChange {
	b := make([]busv1.Row, 0, len(before))
	for _, r := range before {
		b = append(b, *r)
	}
	a := make([]busv1.Row, 0, len(after))
	for _, r := range after {
		a = append(a, *r)
	}
	return Compare(b, a)
}
