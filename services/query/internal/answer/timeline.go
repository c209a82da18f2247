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
	if o.UID != "" {
		return row.UID == o.UID
	}
	return row.Kind == o.Kind && row.Name == o.Name && row.Namespace == o.Namespace && (o.Group == "" || row.Group == o.Group)
}

// Timeline returns o's changes in revs[from:], oldest first, stopping after
// limit entries (0: no limit); next is the index of the first revision not
// read (len(revs) when all were). The state before revs[from] is read from
// revs[from-1]; later revisions are read through their deltas where they
// apply, whole otherwise.
func (r *Reader) Timeline(ctx context.Context, revs []Revision, from int, o Object, limit int) (entries []queryv1.TimelineEntry, next int, err error) {
	state := map[busv1.RowKey]*busv1.Row{}
	if from > 0 {
		rows, err := r.Rows(ctx, revs[from-1].Event)
		if err != nil {
			return nil, 0, err
		}
		state = match(rows, o)
	}
	for i := from; i < len(revs); i++ {
		ev := revs[i].Event
		var prev *busv1.SnapshotEvent
		if i > 0 {
			prev = revs[i-1].Event
		}
		cur, err := r.advance(ctx, prev, ev, state, o)
		if err != nil {
			return nil, 0, err
		}
		changes := compareMatched(state, cur)
		for _, c := range changes {
			entries = append(entries, queryv1.TimelineEntry{Revision: ev.Revision, Time: metav1.NewTime(ev.CreatedAt), RowChange: c})
		}
		state = cur
		if limit > 0 && len(entries) >= limit {
			return entries, i + 1, nil
		}
	}
	return entries, len(revs), nil
}

// advance returns o's rows at ev given its rows at prev (state): through
// ev's delta when it applies to prev, from ev's rows otherwise.
func (r *Reader) advance(ctx context.Context, prev, ev *busv1.SnapshotEvent, state map[busv1.RowKey]*busv1.Row, o Object) (map[busv1.RowKey]*busv1.Row, error) {
	if prev != nil && prev.Checksum == ev.Checksum {
		return state, nil
	}
	if prev != nil {
		d, err := r.delta(ctx, prev, ev)
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
			for i := range d.Upserts {
				if row := &d.Upserts[i]; o.Matches(row) {
					cur[row.Key()] = row
				} else {
					delete(cur, row.Key()) // renamed away from o
				}
			}
			return cur, nil
		}
	}
	rows, err := r.Rows(ctx, ev)
	if err != nil {
		return nil, err
	}
	return match(rows, o), nil
}

func match(rows []busv1.Row, o Object) map[busv1.RowKey]*busv1.Row {
	out := map[busv1.RowKey]*busv1.Row{}
	for i := range rows {
		if o.Matches(&rows[i]) {
			out[rows[i].Key()] = &rows[i]
		}
	}
	return out
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
