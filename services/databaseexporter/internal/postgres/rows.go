package postgres

import (
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// copyRow is one row as COPY writes it: the staging columns' text, the
// attributes as a JSON object.
type copyRow struct {
	cols  [8]string
	attrs []byte
}

// copySource yields the rows of a copy: a snapshot's items (rowSource) or
// its rows streamed from the bus (streamSource).
type copySource interface {
	// Next advances to the next row, false after the last or an error.
	Next() bool
	// Row is the current row, valid until Next.
	Row() *copyRow
	// Err returns the error that stopped the rows.
	Err() error
}

// rowSource yields the rows of a copy: in the order of rows, or in key
// order (see keyOrder) when order is set; a key that repeats is then an
// error.
type rowSource struct {
	rows  []busv1.Row
	order *keyOrder
	i     int
	cur   *busv1.Row
	row   copyRow
	err   error
}

func newRowSource(rows []busv1.Row) *rowSource {
	return &rowSource{rows: rows, i: -1}
}

// inKeyOrder makes s yield its rows in key order.
func (s *rowSource) inKeyOrder() *rowSource {
	s.order = newKeyOrder(s.rows)
	return s
}

// Next advances to the next row, s.cur.
func (s *rowSource) Next() bool {
	if !s.advance() {
		return false
	}
	r := s.cur
	s.row.cols = [8]string{r.TargetNamespace, r.TargetName, r.UID, r.Namespace, r.Name, r.Group, r.Version, r.Kind}
	var err error
	if s.row.attrs, err = appendAttributes(s.row.attrs[:0], r.Attributes); err != nil {
		// The same snapshot fails again.
		s.err = sink.Permanent(fmt.Errorf("row %s/%s uid %s: %w", r.Namespace, r.Name, r.UID, err))
		return false
	}
	return true
}

// Row returns the current row.
func (s *rowSource) Row() *copyRow { return &s.row }

// advance moves s.cur to the next row.
func (s *rowSource) advance() bool {
	if s.err != nil {
		return false
	}
	if s.order == nil {
		s.i++
		if s.i >= len(s.rows) {
			return false
		}
		s.cur = &s.rows[s.i]
		return true
	}
	prev := s.cur
	if s.cur = s.order.pop(); s.cur == nil {
		return false
	}
	if prev != nil && compareKeys(prev, s.cur) == 0 {
		s.err = sink.Permanent(fmt.Errorf("rows %s/%s and %s/%s have the same key (target %s/%s, uid %s)",
			prev.Namespace, prev.Name, s.cur.Namespace, s.cur.Name, s.cur.TargetNamespace, s.cur.TargetName, s.cur.UID))
		return false
	}
	return true
}

// Err returns the error that stopped the rows.
func (s *rowSource) Err() error { return s.err }

// columnArrays returns the staging columns of rows as parallel arrays, the
// attributes as JSON text.
func columnArrays(rows []busv1.Row) ([][]string, error) {
	cols := make([][]string, len(stagingColumns))
	for i := range cols {
		cols[i] = make([]string, len(rows))
	}
	for j := range rows {
		r := &rows[j]
		b, err := appendAttributes(nil, r.Attributes)
		if err != nil {
			return nil, sink.Permanent(fmt.Errorf("row %s/%s uid %s: %w", r.Namespace, r.Name, r.UID, err))
		}
		for i, v := range []string{r.TargetNamespace, r.TargetName, r.UID, r.Namespace, r.Name, r.Group, r.Version, r.Kind, string(b)} {
			cols[i][j] = v
		}
	}
	return cols, nil
}
