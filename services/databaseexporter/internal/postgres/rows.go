package postgres

import (
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// rowSource yields the rows of a copy: in the order of rows, or in key
// order (see keyOrder) when order is set; a key that repeats is then an
// error.
type rowSource struct {
	rows  []busv1.Row
	order *keyOrder
	i     int
	cur   *busv1.Row
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
