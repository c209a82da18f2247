package objectstore

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/parquet-go/parquet-go"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// ColumnType is the Parquet type of an attr_<name> column, as the Parquet
// pointer records it.
type ColumnType string

// The types of attr_<name> columns. A column's type is its attribute's
// declared Profile type when the snapshot carries one (see DeclaredType),
// else inferred from the JSON kind of the values: a JSON number carries no
// integer-ness a column could rely on (a float of 2.0 and an int of 2 are
// the same number), so every inferred number is a double.
const (
	// ColumnString is a UTF-8 string (BYTE_ARRAY, logical type STRING).
	ColumnString ColumnType = "string"
	// ColumnInt64 is a signed INT64 (logical type INT(64, true)), for
	// attributes declared int.
	ColumnInt64 ColumnType = "int64"
	// ColumnDouble is a DOUBLE, for attributes declared float and every
	// number of an attribute without a declared type.
	ColumnDouble ColumnType = "double"
	// ColumnBoolean is a BOOLEAN.
	ColumnBoolean ColumnType = "boolean"
	// ColumnJSON is JSON text (BYTE_ARRAY, logical type JSON), for lists,
	// maps and attributes whose values in one file are of different kinds.
	ColumnJSON ColumnType = "json"
)

// DeclaredType returns the column type of a declared Profile attribute
// type: int is ColumnInt64, float ColumnDouble, bool ColumnBoolean, string
// ColumnString, list and map ColumnJSON. any, and no declared type, are "":
// the column type is inferred.
func DeclaredType(declared string) ColumnType {
	switch declared {
	case busv1.AttributeInt:
		return ColumnInt64
	case busv1.AttributeFloat:
		return ColumnDouble
	case busv1.AttributeBool:
		return ColumnBoolean
	case busv1.AttributeString:
		return ColumnString
	case busv1.AttributeList, busv1.AttributeMap:
		return ColumnJSON
	}
	return ""
}

// ColumnTypeOf returns the type of attribute a's column in a file of rows,
// whose declared Profile type is declared ("" for none).
//
// A declared type gives the column its type (DeclaredType) whenever every
// value of the file fits it, also when no row has a value. A value that
// does not fit (a redacted value, the list a wildcard path yields, the
// rows of a Target whose Profile declares otherwise) makes the column's
// type inferred, as for an attribute without a declared type.
//
// An inferred type depends on the JSON kind of the values only, never on
// the values themselves: strings are ColumnString, numbers ColumnDouble
// (whole or not), booleans ColumnBoolean, lists and maps ColumnJSON, and
// values of more than one kind ColumnJSON. When no row has a value, the
// column keeps prev, the type of the inventory's previous file, or is
// ColumnString when there is none.
func ColumnTypeOf(rows []busv1.Row, a, declared string, prev ColumnType) ColumnType {
	if t := DeclaredType(declared); t != "" && fits(rows, a, t) {
		return t
	}
	var typ ColumnType
	for i := range rows {
		v := rows[i].Attributes[a]
		if v == nil {
			continue
		}
		switch k := kindOf(v); {
		case typ == "":
			typ = k
		case k != typ:
			return ColumnJSON
		}
	}
	if typ != "" {
		return typ
	}
	switch prev {
	case ColumnString, ColumnInt64, ColumnDouble, ColumnBoolean, ColumnJSON:
		return prev
	}
	return ColumnString
}

// fits reports whether every value of attribute a in rows converts to t.
func fits(rows []busv1.Row, a string, t ColumnType) bool {
	if t == ColumnJSON {
		return true
	}
	for i := range rows {
		if !t.accepts(rows[i].Attributes[a]) {
			return false
		}
	}
	return true
}

// accepts reports whether value converts v (nil included) to t, without
// converting it.
func (t ColumnType) accepts(v any) bool {
	if v == nil {
		return true
	}
	var ok bool
	switch t {
	case ColumnString:
		_, ok = v.(string)
	case ColumnBoolean:
		_, ok = v.(bool)
	case ColumnInt64:
		_, ok = integer(v)
	case ColumnDouble:
		_, ok = number(v)
	case ColumnJSON:
		ok = true
	}
	return ok
}

// kindOf is the column type of one non-null value.
func kindOf(v any) ColumnType {
	switch v.(type) {
	case string:
		return ColumnString
	case bool:
		return ColumnBoolean
	}
	if _, ok := number(v); ok {
		return ColumnDouble
	}
	return ColumnJSON
}

func (t ColumnType) node() parquet.Node {
	switch t {
	case ColumnInt64:
		return parquet.Int(64)
	case ColumnDouble:
		return parquet.Leaf(parquet.DoubleType)
	case ColumnBoolean:
		return parquet.Leaf(parquet.BooleanType)
	case ColumnJSON:
		return parquet.JSON()
	}
	return parquet.String()
}

// value converts an attribute value to the column's type; nil and a
// missing attribute are null.
func (t ColumnType) value(v any) (parquet.Value, error) {
	if v == nil {
		return parquet.NullValue(), nil
	}
	switch t {
	case ColumnString:
		if s, ok := v.(string); ok {
			return parquet.ByteArrayValue([]byte(s)), nil
		}
	case ColumnBoolean:
		if b, ok := v.(bool); ok {
			return parquet.BooleanValue(b), nil
		}
	case ColumnInt64:
		if n, ok := integer(v); ok {
			return parquet.Int64Value(n), nil
		}
	case ColumnDouble:
		if f, ok := number(v); ok {
			return parquet.DoubleValue(f), nil
		}
	case ColumnJSON:
		b, err := marshalJSON(v)
		return parquet.ByteArrayValue(b), err
	}
	return parquet.Value{}, fmt.Errorf("a %T value in a %s column", v, t)
}

// number returns v as a float64 when it is a number.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int8:
		return float64(v), true
	case int16:
		return float64(v), true
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	case uint:
		return float64(v), true
	case uint8:
		return float64(v), true
	case uint16:
		return float64(v), true
	case uint32:
		return float64(v), true
	case uint64:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}

// integer returns v as an int64 when it is an integer within int64's range:
// a Go integer, an integral float64 (JSON decoders give those; integers
// beyond 2^53 arrive as int64, see busv1.Row) or an integer json.Number.
func integer(v any) (int64, bool) {
	switch v := v.(type) {
	case int64:
		return v, true
	case int:
		return int64(v), true
	case int32:
		return int64(v), true
	case int16:
		return int64(v), true
	case int8:
		return int64(v), true
	case uint64:
		return int64(v), v <= math.MaxInt64 //nolint:gosec // G115: the bool reports whether it fits
	case uint:
		return int64(v), uint64(v) <= math.MaxInt64 //nolint:gosec // G115: the bool reports whether it fits
	case uint32:
		return int64(v), true
	case uint16:
		return int64(v), true
	case uint8:
		return int64(v), true
	case float64:
		return integral(v)
	case float32:
		return integral(float64(v))
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n, true
		}
		if f, err := v.Float64(); err == nil {
			return integral(f)
		}
	}
	return 0, false
}

// integral returns f as an int64 when it is a whole number within int64's
// range (-2^63 <= f < 2^63).
func integral(f float64) (int64, bool) {
	if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}
