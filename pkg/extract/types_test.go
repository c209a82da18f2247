package extract

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTypesAreEnforcedWithoutSilentConversion(t *testing.T) {
	m := map[string]any{"a": "b"}
	tests := []struct {
		name    string
		typ     Type
		in      any
		want    any
		wantErr bool
	}{
		{"a string is a string", TypeString, "x", "x", false},
		{"a number is not a string", TypeString, int64(1), nil, true},
		{"a bool is not a string", TypeString, true, nil, true},
		{"an int64 is an int", TypeInt, int64(3), int64(3), false},
		{"a Go int becomes int64", TypeInt, 3, int64(3), false},
		{"an integral float is an int", TypeInt, float64(4), int64(4), false},
		{"a fractional float is not an int", TypeInt, 4.5, nil, true},
		{"a float beyond int64 is not an int", TypeInt, math.MaxFloat64, nil, true},
		{"NaN is not an int", TypeInt, math.NaN(), nil, true},
		{"a uint64 beyond int64 is not an int", TypeInt, uint64(math.MaxUint64), nil, true},
		{"a numeric string is not an int", TypeInt, "3", nil, true},
		{"a float is a float", TypeFloat, 0.25, 0.25, false},
		{"an int becomes a float", TypeFloat, int64(2), float64(2), false},
		{"a string is not a float", TypeFloat, "0.25", nil, true},
		{"a bool is a bool", TypeBool, false, false, false},
		{"the string true is not a bool", TypeBool, "true", nil, true},
		{"a list is a list", TypeList, []any{"a"}, []any{"a"}, false},
		{"a scalar becomes a one-element list", TypeList, "a", []any{"a"}, false},
		{"a map becomes a one-element list", TypeList, m, []any{m}, false},
		{"a map is a map", TypeMap, m, m, false},
		{"a list is not a map", TypeMap, []any{}, nil, true},
		{"any takes a map", TypeAny, m, m, false},
		{"the empty type is any", "", int64(1), int64(1), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.typ.enforce(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("enforce(%v) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			var te *TypeError
			if err != nil && !errors.As(err, &te) {
				t.Errorf("error %v is not a *TypeError", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("enforce (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTypeErrorsNeverQuoteTheValue(t *testing.T) {
	_, err := TypeInt.enforce("s3cr3t-value")
	if err == nil {
		t.Fatal("no error")
	}
	if got := err.Error(); got != "value is string, want int" {
		t.Errorf("message = %q", got)
	}
}

func TestMultiValuedPathsApplyScalarTypesToEachElement(t *testing.T) {
	tests := []struct {
		name    string
		typ     Type
		in      []any
		want    []any
		wantErr bool
	}{
		{"ints stay ints", TypeInt, []any{int64(1), float64(2)}, []any{int64(1), int64(2)}, false},
		{"nulls are kept", TypeString, []any{"a", nil}, []any{"a", nil}, false},
		{"one wrong element fails the list", TypeString, []any{"a", int64(1)}, nil, true},
		{"list and any keep elements as they are", TypeList, []any{"a", int64(1)}, []any{"a", int64(1)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.typ.enforceEach(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, want error %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
