package extract

import (
	"fmt"
	"math"
)

// Type is an attribute's declared type (spec.attributes[].type).
type Type string

// Attribute types. Values are checked, never silently converted to a different kind:
//   - string accepts only strings;
//   - int accepts any Go integer within int64 range and a float64 with an integral value
//     (JSON decoders produce those), and yields int64;
//   - float accepts floats and integers, and yields float64;
//   - bool accepts only booleans;
//   - list accepts a list, and wraps any other value in a one-element list;
//   - map accepts only a map[string]any;
//   - any accepts everything.
//
// A path that can match several values (JSONPath wildcard, "..", filter) always yields a
// list; a scalar type then applies to each element.
const (
	TypeString Type = "string"
	TypeInt    Type = "int"
	TypeFloat  Type = "float"
	TypeBool   Type = "bool"
	TypeList   Type = "list"
	TypeMap    Type = "map"
	TypeAny    Type = "any"
)

// Types lists the valid attribute types in their documented order.
var Types = []string{
	string(TypeString), string(TypeInt), string(TypeFloat), string(TypeBool),
	string(TypeList), string(TypeMap), string(TypeAny),
}

func (t Type) valid() bool {
	switch t {
	case TypeString, TypeInt, TypeFloat, TypeBool, TypeList, TypeMap, TypeAny, "":
		return true
	}
	return false
}

// TypeError reports a value whose kind does not match the declared type. It never carries the
// value itself, which may be sensitive.
type TypeError struct {
	// Want is the declared type.
	Want Type
	// Got is the JSON kind of the value (string, int, float, bool, list, map, null).
	Got string
}

// Error implements error.
func (e *TypeError) Error() string {
	return fmt.Sprintf("value is %s, want %s", e.Got, e.Want)
}

// enforce checks a single value against t. A nil value is the caller's business (missing).
func (t Type) enforce(v any) (any, error) {
	switch t {
	case TypeAny, "":
		return v, nil
	case TypeString:
		if _, ok := v.(string); ok {
			return v, nil
		}
	case TypeInt:
		if n, ok := toInt(v); ok {
			if _, same := v.(int64); same {
				return v, nil // already boxed: no new allocation
			}
			return n, nil
		}
	case TypeFloat:
		if f, ok := toFloat(v); ok {
			if _, same := v.(float64); same {
				return v, nil
			}
			return f, nil
		}
	case TypeBool:
		if _, ok := v.(bool); ok {
			return v, nil
		}
	case TypeList:
		if _, ok := v.([]any); ok || isMarker(v) {
			return v, nil
		}
		return []any{v}, nil
	case TypeMap:
		if _, ok := v.(map[string]any); ok {
			return v, nil
		}
	}
	if isMarker(v) {
		return v, nil // a redacted value of any type
	}
	return nil, &TypeError{Want: t, Got: kindOf(v)}
}

// enforceEach checks every element of a multi-valued result. Nil elements (JSON null) stay.
func (t Type) enforceEach(list []any) ([]any, error) {
	switch t {
	case TypeAny, TypeList, "":
		return list, nil
	}
	for i, v := range list {
		if v == nil {
			continue
		}
		nv, err := t.enforce(v)
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		list[i] = nv // list is always freshly built by the evaluator
	}
	return list, nil
}

func toInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case int16:
		return int64(n), true
	case int8:
		return int64(n), true
	case uint64:
		return int64(n), n <= math.MaxInt64 //nolint:gosec // G115: the bool reports whether it fits
	case uint:
		return int64(n), uint64(n) <= math.MaxInt64 //nolint:gosec // G115: the bool reports whether it fits
	case uint32:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint8:
		return int64(n), true
	case float64:
		return floatToInt(n)
	case float32:
		return floatToInt(float64(n))
	}
	return 0, false
}

func floatToInt(f float64) (int64, bool) {
	if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	}
	if i, ok := toInt(v); ok {
		return float64(i), true
	}
	return 0, false
}

// kindOf names a value's JSON kind for error messages.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "bool"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "int"
	case float32, float64:
		return "float"
	case []any:
		return "list"
	case map[string]any:
		return "map"
	}
	return fmt.Sprintf("%T", v)
}
