package postgres

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// rowSource feeds rows to COPY in the order of stagingColumns, or of
// rowColumns when scope is set (a copy straight into the table), encoding
// each row's attributes once, into a buffer reused across rows (pgx encodes
// the values before asking for the next row). The per-export values are
// boxed once and the row's strings passed as *textRef, so that a row costs
// one allocation (its attributes' box) besides the JSON encoding.
//
// Rows go in the order of rows, or in key order (see keyOrder) when order
// is set; a key that repeats is then an error.
type rowSource struct {
	rows  []busv1.Row
	order *keyOrder
	i     int
	cur   *busv1.Row
	scope *scope
	fixed [6]any // the scope's cluster, namespace, name, checksum, revision, exportedAt
	vals  [15]any
	buf   []byte
	err   error
}

func newRowSource(rows []busv1.Row, sc *scope) *rowSource {
	s := &rowSource{rows: rows, i: -1, scope: sc}
	if sc != nil {
		s.fixed = [6]any{sc.cluster, sc.namespace, sc.name, sc.checksum, sc.revision, sc.exportedAt}
	}
	return s
}

// inKeyOrder makes s yield its rows in key order.
func (s *rowSource) inKeyOrder() *rowSource {
	s.order = newKeyOrder(s.rows)
	return s
}

// Next advances to the next row.
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

// Values returns the current row's values.
func (s *rowSource) Values() ([]any, error) {
	r := s.cur
	var err error
	s.buf, err = appendAttributes(s.buf[:0], r.Attributes)
	if err != nil {
		// The same snapshot fails again.
		s.err = sink.Permanent(fmt.Errorf("row %s/%s uid %s: %w", r.Namespace, r.Name, r.UID, err))
		return nil, s.err
	}
	v := s.vals[:0]
	if s.scope != nil {
		v = append(v, s.fixed[:3]...)
	}
	v = append(v, ref(&r.TargetNamespace), ref(&r.TargetName), ref(&r.UID), ref(&r.Namespace), ref(&r.Name),
		ref(&r.Group), ref(&r.Version), ref(&r.Kind), s.buf)
	if s.scope != nil {
		v = append(v, s.fixed[3:]...)
	}
	return v, nil
}

// Err returns the error that stopped the copy.
func (s *rowSource) Err() error { return s.err }

// textRef is a string that pgx encodes as text (pgtype.TextValuer); a
// pointer to it fits an interface without allocating.
type textRef string

func ref(s *string) *textRef { return (*textRef)(s) }

// TextValue returns the string.
func (t *textRef) TextValue() (pgtype.Text, error) {
	return pgtype.Text{String: string(*t), Valid: true}, nil
}

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
			return nil, fmt.Errorf("row %s/%s uid %s: %w", r.Namespace, r.Name, r.UID, err)
		}
		for i, v := range []string{r.TargetNamespace, r.TargetName, r.UID, r.Namespace, r.Name, r.Group, r.Version, r.Kind, string(b)} {
			cols[i][j] = v
		}
	}
	return cols, nil
}
