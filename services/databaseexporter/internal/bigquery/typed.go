package bigquery

import (
	"math"
	"slices"
	"strings"

	"cloud.google.com/go/bigquery"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Typed attribute columns. Each attribute a snapshot declares a scalar
// type for (Envelope.AttributeTypes: string, int, float or bool) also has a
// column of its own, attr_<name>, of type STRING, INT64, FLOAT64 or BOOL,
// in the data table and the history table, beside the attributes JSON
// column, which keeps every attribute. list, map and any attributes, and
// attributes without a declared type, are in the JSON only.
//
// In ensure mode a table created by a write has the columns of that
// write's snapshot; a column declared later is added with ALTER TABLE ADD
// COLUMN IF NOT EXISTS (nullable: the rows written before it hold NULL, and
// so do the history versions opened before it); a refused ALTER TABLE is
// logged and the write goes on without the column. In existing mode columns
// are never added: the ones the table has are written. A column's type in
// the table wins over the declared one: a value that does not fit it
// exactly (1.5 in an INT64 column, a string in a BOOL one) is NULL in the
// column, and the JSON keeps it.

// AttributeColumnPrefix prefixes the column of each typed attribute, as
// in Parquet (objectstore.AttributeColumnPrefix).
const AttributeColumnPrefix = "attr_"

// typedColumn is one typed attribute column.
type typedColumn struct {
	Attr string             // the attribute's name
	Name string             // the column's name in the table
	Type bigquery.FieldType // the column's type in the table
}

// columnType is the column type of each declared scalar type.
var columnType = map[string]bigquery.FieldType{
	busv1.AttributeString: bigquery.StringFieldType,
	busv1.AttributeInt:    bigquery.IntegerFieldType,
	busv1.AttributeFloat:  bigquery.FloatFieldType,
	busv1.AttributeBool:   bigquery.BooleanFieldType,
}

// declaredColumns are the typed columns types declares, in name order.
// Attributes whose names differ only in case are left out (in the JSON
// only): BigQuery column names are case-insensitive.
func declaredColumns(types busv1.AttributeTypes) []typedColumn {
	byFold := map[string]int{}
	for attr := range types {
		byFold[strings.ToLower(attr)]++
	}
	var out []typedColumn
	for attr, t := range types {
		ft, ok := columnType[t]
		if !ok || byFold[strings.ToLower(attr)] > 1 {
			continue
		}
		out = append(out, typedColumn{Attr: attr, Name: AttributeColumnPrefix + attr, Type: ft})
	}
	slices.SortFunc(out, func(a, b typedColumn) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// columnSchema are the nullable table columns of cols.
func columnSchema(cols []typedColumn) bigquery.Schema {
	s := make(bigquery.Schema, 0, len(cols))
	for _, c := range cols {
		s = append(s, &bigquery.FieldSchema{Name: c.Name, Type: c.Type})
	}
	return s
}

// tableColumns are the columns of a table's schema by lower-case name.
type tableColumns map[string]*bigquery.FieldSchema

func columnsOf(schema bigquery.Schema) tableColumns {
	out := make(tableColumns, len(schema))
	for _, f := range schema {
		out[strings.ToLower(f.Name)] = f
	}
	return out
}

// present returns the columns of want that every table of in has, each
// with its name and type in the first one (the data table), and the
// columns some table lacks.
func present(want []typedColumn, in ...tableColumns) (have, missing []typedColumn) {
	for _, c := range want {
		key := strings.ToLower(c.Name)
		f, ok := in[0][key]
		for _, t := range in[1:] {
			ok = ok && t[key] != nil
		}
		if !ok {
			missing = append(missing, c)
			continue
		}
		have = append(have, typedColumn{Attr: c.Attr, Name: f.Name, Type: f.Type})
	}
	return have, missing
}

// addColumnsStatement adds cols to table, each unless it exists.
func addColumnsStatement(table tableRef, cols []typedColumn) statement {
	adds := make([]string, len(cols))
	for i, c := range cols {
		adds[i] = "ADD COLUMN IF NOT EXISTS `" + c.Name + "` " + sqlType(c.Type)
	}
	return statement{SQL: "ALTER TABLE " + table.sql() + " " + strings.Join(adds, ", ")}
}

// sqlType is the standard SQL name of a column type.
func sqlType(t bigquery.FieldType) string {
	switch t {
	case bigquery.IntegerFieldType:
		return "INT64"
	case bigquery.FloatFieldType:
		return "FLOAT64"
	case bigquery.BooleanFieldType:
		return "BOOL"
	}
	return "STRING"
}

// maxInt64Float is 2^63, the first float64 above the int64 range.
const maxInt64Float = 1 << 63

// typedValue is v as a value of a column of type t, or false when it does
// not fit exactly. Attribute numbers are float64, or int64 when float64
// cannot hold them exactly (busv1.Unmarshal).
func typedValue(v any, t bigquery.FieldType) (any, bool) {
	switch t {
	case bigquery.IntegerFieldType:
		switch n := v.(type) {
		case int64:
			return n, true
		case float64:
			if n == math.Trunc(n) && n >= -maxInt64Float && n < maxInt64Float {
				return int64(n), true
			}
		}
	case bigquery.FloatFieldType:
		switch n := v.(type) {
		case float64:
			return n, true
		case int64:
			if f := float64(n); f != maxInt64Float && int64(f) == n {
				return f, true
			}
		}
	case bigquery.BooleanFieldType:
		b, ok := v.(bool)
		return b, ok
	case bigquery.StringFieldType:
		s, ok := v.(string)
		return s, ok
	}
	return nil, false
}
