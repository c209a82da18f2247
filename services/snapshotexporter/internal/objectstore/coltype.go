package objectstore

import (
	"encoding/json"
	"fmt"

	"github.com/parquet-go/parquet-go"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// ColumnType is the Parquet type of an attr_<name> column, as the Parquet
// pointer records it.
type ColumnType string

// The types of attr_<name> columns. There is no integer type: attribute
// values reach the exporter as JSON numbers, which carry no integer-ness a
// column could rely on (a Profile float of 2.0 and an int of 2 are the same
// number), so every number is a double. Integers are exact up to 2^53, as
// in any JSON reader.
const (
	// ColumnString is a UTF-8 string (BYTE_ARRAY, logical type STRING).
	ColumnString ColumnType = "string"
	// ColumnDouble is a DOUBLE, for every number.
	ColumnDouble ColumnType = "double"
	// ColumnBoolean is a BOOLEAN.
	ColumnBoolean ColumnType = "boolean"
	// ColumnJSON is JSON text (BYTE_ARRAY, logical type JSON), for lists,
	// maps and attributes whose values in one file are of different kinds.
	ColumnJSON ColumnType = "json"
)

// ColumnTypeOf returns the type of attribute a's column in a file of rows.
// It depends on the JSON kind of the values only, never on the values
// themselves: strings are ColumnString, numbers ColumnDouble (whole or
// not), booleans ColumnBoolean, lists and maps ColumnJSON, and values of
// more than one kind ColumnJSON. An attribute with a declared Profile type
// (string, int, float, bool, list, map) therefore has one type in every
// file. When no row has a value, the column keeps prev, the type of the
// inventory's previous file, or is ColumnString when there is none.
func ColumnTypeOf(rows []busv1.Row, a string, prev ColumnType) ColumnType {
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
	case ColumnString, ColumnDouble, ColumnBoolean, ColumnJSON:
		return prev
	}
	return ColumnString
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
