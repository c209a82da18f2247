package postgres

import (
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// rowSource feeds rows to COPY in the order of stagingColumns, or of
// rowColumns when scope is set (a copy straight into the table), encoding
// each row's attributes once, into a buffer reused across rows (pgx encodes
// the values before asking for the next row).
type rowSource struct {
	rows  []busv1.Row
	i     int
	scope *scope
	vals  [15]any
	buf   []byte
	err   error
}

// Next advances to the next row.
func (s *rowSource) Next() bool {
	s.i++
	return s.i < len(s.rows) && s.err == nil
}

// Values returns the current row's values.
func (s *rowSource) Values() ([]any, error) {
	r := &s.rows[s.i]
	var err error
	// Pointers box without allocating; pgx encodes what they point to.
	s.buf, err = appendAttributes(s.buf[:0], r.Attributes)
	if err != nil {
		s.err = fmt.Errorf("row %s/%s uid %s: %w", r.Namespace, r.Name, r.UID, err)
		return nil, s.err
	}
	if sc := s.scope; sc != nil {
		s.vals = [15]any{&sc.cluster, &sc.namespace, &sc.name, &r.TargetNamespace, &r.TargetName, &r.UID,
			&r.Namespace, &r.Name, &r.Group, &r.Version, &r.Kind, &s.buf, &sc.checksum, &sc.revision, &sc.exportedAt}
		return s.vals[:], nil
	}
	s.vals = [15]any{&r.TargetNamespace, &r.TargetName, &r.UID, &r.Namespace, &r.Name, &r.Group, &r.Version, &r.Kind, &s.buf}
	return s.vals[:9], nil
}

// Err returns the error that stopped the copy.
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
			return nil, fmt.Errorf("row %s/%s uid %s: %w", r.Namespace, r.Name, r.UID, err)
		}
		for i, v := range []string{r.TargetNamespace, r.TargetName, r.UID, r.Namespace, r.Name, r.Group, r.Version, r.Kind, string(b)} {
			cols[i][j] = v
		}
	}
	return cols, nil
}
