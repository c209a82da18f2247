package answer

import (
	"bytes"
	"encoding/json"
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
)

// Compare returns the row-level difference from before to after (each in
// any order), in canonical row order: rows added, removed, and changed with
// the attributes and identity fields that differ.
func Compare(before, after []busv1.Row) []queryv1.RowChange {
	old := make(map[busv1.RowKey]*busv1.Row, len(before))
	for i := range before {
		old[before[i].Key()] = &before[i]
	}
	var out []queryv1.RowChange
	for i := range after {
		a := &after[i]
		k := a.Key()
		b, ok := old[k]
		if !ok {
			out = append(out, queryv1.RowChange{Change: queryv1.ChangeAdded, Key: k, After: a})
			continue
		}
		delete(old, k)
		if ch, changed := CompareRow(b, a); changed {
			out = append(out, ch)
		}
	}
	for _, b := range old {
		out = append(out, queryv1.RowChange{Change: queryv1.ChangeRemoved, Key: b.Key(), Before: b})
	}
	slices.SortFunc(out, func(x, y queryv1.RowChange) int { return busv1.CompareRows(*rowOf(&x), *rowOf(&y)) })
	return out
}

// rowOf returns the row a change is ordered by: the later one, or the
// removed one.
func rowOf(c *queryv1.RowChange) *busv1.Row {
	if c.After != nil {
		return c.After
	}
	return c.Before
}

// CompareRow compares two versions of one row and reports whether they
// differ, with the change naming what differs.
func CompareRow(before, after *busv1.Row) (queryv1.RowChange, bool) {
	var attrs []queryv1.AttributeChange
	for _, f := range []struct{ name, b, a string }{
		{".namespace", before.Namespace, after.Namespace}, {".name", before.Name, after.Name},
		{".group", before.Group, after.Group}, {".version", before.Version, after.Version}, {".kind", before.Kind, after.Kind},
	} {
		if f.b != f.a {
			attrs = append(attrs, queryv1.AttributeChange{Name: f.name, Before: f.b, After: f.a})
		}
	}
	names := make([]string, 0, len(before.Attributes)+len(after.Attributes))
	for n := range before.Attributes {
		names = append(names, n)
	}
	for n := range after.Attributes {
		if _, ok := before.Attributes[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		b, inB := before.Attributes[n]
		a, inA := after.Attributes[n]
		if inB != inA || !sameJSON(b, a) {
			attrs = append(attrs, queryv1.AttributeChange{Name: n, Before: b, After: a})
		}
	}
	if len(attrs) == 0 {
		return queryv1.RowChange{}, false
	}
	return queryv1.RowChange{Change: queryv1.ChangeChanged, Key: after.Key(), Before: before, After: after, Attributes: attrs}, true
}

// sameJSON reports whether a and b encode to the same JSON (maps encode
// with sorted keys, so nested objects compare by content).
func sameJSON(a, b any) bool {
	x, errX := json.Marshal(a)
	y, errY := json.Marshal(b)
	return errX == nil && errY == nil && bytes.Equal(x, y)
}
