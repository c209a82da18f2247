package objectstoretest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// ParquetFile is a Parquet file read back.
type ParquetFile struct {
	// Schema is the schema as parquet-go prints it.
	Schema string
	// Metadata is the file's key-value metadata.
	Metadata map[string]string
	// Columns are the column names in file order.
	Columns []string
	// Values are the rows, column name to value (string, int64, float64,
	// bool or nil for null).
	Values []map[string]any
	// Rows are the rows rebuilt from the columns, attributes from the
	// attributes JSON column.
	Rows []busv1.Row
}

// ReadParquet parses a Parquet file with parquet-go.
func ReadParquet(body []byte) (*ParquetFile, error) {
	f, err := parquet.OpenFile(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, fmt.Errorf("open parquet file: %w", err)
	}
	pf := &ParquetFile{Schema: f.Schema().String(), Metadata: map[string]string{}, Rows: []busv1.Row{}}
	for _, kv := range f.Metadata().KeyValueMetadata {
		pf.Metadata[kv.Key] = kv.Value
	}
	for _, path := range f.Schema().Columns() {
		pf.Columns = append(pf.Columns, strings.Join(path, "."))
	}
	for _, rg := range f.RowGroups() {
		if err := pf.readGroup(rg); err != nil {
			return nil, err
		}
	}
	for _, v := range pf.Values {
		r, err := rowOf(v)
		if err != nil {
			return nil, err
		}
		pf.Rows = append(pf.Rows, r)
	}
	return pf, nil
}

func (pf *ParquetFile) readGroup(rg parquet.RowGroup) error {
	rows := rg.Rows()
	defer rows.Close()
	buf := make([]parquet.Row, 128)
	for {
		n, err := rows.ReadRows(buf)
		for _, row := range buf[:n] {
			m := make(map[string]any, len(pf.Columns))
			for _, v := range row {
				m[pf.Columns[v.Column()]] = goValue(v)
			}
			pf.Values = append(pf.Values, m)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read parquet rows: %w", err)
		}
	}
}

func goValue(v parquet.Value) any {
	if v.IsNull() {
		return nil
	}
	switch v.Kind() {
	case parquet.ByteArray:
		return string(v.ByteArray())
	case parquet.Int64:
		return v.Int64()
	case parquet.Double:
		return v.Double()
	case parquet.Boolean:
		return v.Boolean()
	}
	return v.String()
}

func rowOf(m map[string]any) (busv1.Row, error) {
	s := func(k string) string { v, _ := m[k].(string); return v }
	r := busv1.Row{TargetNamespace: s("target_namespace"), TargetName: s("target_name"), Namespace: s("namespace"),
		Name: s("name"), UID: s("uid"), Group: s("group"), Version: s("version"), Kind: s("kind")}
	if err := json.Unmarshal([]byte(s("attributes")), &r.Attributes); err != nil {
		return r, fmt.Errorf("decode attributes of row %s: %w", r.UID, err)
	}
	return r, nil
}

// ColumnType returns the schema line of column name, such as "optional
// double attr_replicas" (the logical type in parentheses included), or ""
// when the file has no such column.
func (pf *ParquetFile) ColumnType(name string) string {
	for _, line := range strings.Split(pf.Schema, "\n") {
		line = strings.TrimSuffix(strings.TrimSpace(line), ";")
		typ, _, _ := strings.Cut(line, " (")
		if fields := strings.Fields(typ); len(fields) == 3 && fields[2] == name {
			return line
		}
	}
	return ""
}
