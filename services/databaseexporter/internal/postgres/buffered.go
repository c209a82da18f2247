package postgres

import (
	"cmp"
	"fmt"
	"slices"

	"kollect.dev/kollect/pkg/sink"
)

// streamBufferBytes bounds the rows a streamed full write into an empty
// scope holds to copy them in key order (their columns and attributes, in
// bytes): a snapshot that fits (about 100k rows of a typical profile) is
// sorted and copied straight into the table, as a loaded one is; a larger
// one goes through staging and an ordered insert, holding no more.
const streamBufferBytes = 32 << 20

// bufferedRows reads rows from src until they exceed limit bytes. all is
// true when src ended within the limit (its error, if any, in err).
func bufferedRows(src *streamSource, limit int) (rows []copyRow, all bool, err error) {
	size := 0
	for size <= limit {
		if !src.Next() {
			return rows, true, src.Err()
		}
		r := *src.Row() // its strings and attributes are the row's own
		rows = append(rows, r)
		size += len(r.attrs)
		for _, c := range r.cols {
			size += len(c)
		}
	}
	return rows, false, nil
}

// sliceSource yields rows, then more (when set), in order; in key order
// when sorted, a key that repeats then being a permanent error.
type sliceSource struct {
	rows   []copyRow
	order  []int32
	i      int
	more   copySource
	sorted bool
	err    error
}

// newSortedSource yields rows in the order of the primary key's varying
// columns.
func newSortedSource(rows []copyRow) *sliceSource {
	order := make([]int32, len(rows))
	for i := range order {
		order[i] = int32(i)
	}
	key := func(i int32) *[8]string { return &rows[i].cols }
	slices.SortFunc(order, func(a, b int32) int {
		x, y := key(a), key(b)
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]), cmp.Compare(x[2], y[2]))
	})
	return &sliceSource{rows: rows, order: order, i: -1, sorted: true}
}

// Next advances to the next row.
func (s *sliceSource) Next() bool {
	if s.err != nil {
		return false
	}
	if s.i+1 < len(s.rows) {
		s.i++
		if s.sorted && s.i > 0 {
			a, b := s.Row(), &s.rows[s.order[s.i-1]]
			if a.cols[0] == b.cols[0] && a.cols[1] == b.cols[1] && a.cols[2] == b.cols[2] {
				s.err = sink.Permanent(fmt.Errorf("rows %s/%s and %s/%s have the same key (target %s/%s, uid %s)",
					b.cols[3], b.cols[4], a.cols[3], a.cols[4], a.cols[0], a.cols[1], a.cols[2]))
				return false
			}
		}
		return true
	}
	s.i = len(s.rows)
	s.rows = nil // what was copied is no longer held
	return s.more != nil && s.more.Next()
}

// Row returns the current row.
func (s *sliceSource) Row() *copyRow {
	switch {
	case s.i >= len(s.rows) || s.rows == nil:
		return s.more.Row()
	case s.sorted:
		return &s.rows[s.order[s.i]]
	}
	return &s.rows[s.i]
}

// Err returns the error that stopped the rows.
func (s *sliceSource) Err() error {
	if s.err == nil && s.more != nil {
		return s.more.Err()
	}
	return s.err
}
