package bigquery

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"testing"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

func TestDeclaredColumns(t *testing.T) {
	got := declaredColumns(busv1.AttributeTypes{"replicas": "int", "ratio": "float", "ready": "bool", "image": "string",
		"ports": "list", "labels": "map", "raw": "any", "Owner": "string", "owner": "int"})
	want := []typedColumn{
		{Attr: "image", Name: "attr_image", Type: bigquery.StringFieldType},
		{Attr: "ratio", Name: "attr_ratio", Type: bigquery.FloatFieldType},
		{Attr: "ready", Name: "attr_ready", Type: bigquery.BooleanFieldType},
		{Attr: "replicas", Name: "attr_replicas", Type: bigquery.IntegerFieldType},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("declaredColumns:\n got %+v\nwant %+v (scalars only, in name order, no names equal but for case)", got, want)
	}
	if got := declaredColumns(nil); len(got) != 0 {
		t.Errorf("declaredColumns(nil) = %+v, want none", got)
	}
}

func TestPresentTakesTheTablesNameAndType(t *testing.T) {
	want := declaredColumns(busv1.AttributeTypes{"replicas": "int", "ready": "bool", "image": "string"})
	data := columnsOf(bigquery.Schema{{Name: "ATTR_REPLICAS", Type: bigquery.FloatFieldType}, {Name: "attr_ready", Type: bigquery.BooleanFieldType}})
	hist := columnsOf(bigquery.Schema{{Name: "attr_replicas", Type: bigquery.FloatFieldType}})
	have, missing := present(want, data, hist)
	if w := []typedColumn{{Attr: "replicas", Name: "ATTR_REPLICAS", Type: bigquery.FloatFieldType}}; !reflect.DeepEqual(have, w) {
		t.Errorf("have %+v, want %+v (in both tables, the data table's name and type)", have, w)
	}
	if len(missing) != 2 || missing[0].Attr != "image" || missing[1].Attr != "ready" {
		t.Errorf("missing %+v, want image and ready", missing)
	}
}

func TestTypedValueKeepsOnlyExactFits(t *testing.T) {
	tests := []struct {
		name string
		v    any
		t    bigquery.FieldType
		want any
		ok   bool
	}{
		{"an integral float is an INT64", 3.0, bigquery.IntegerFieldType, int64(3), true},
		{"an int64 beyond 2^53 stays exact", int64(9007199254740993), bigquery.IntegerFieldType, int64(9007199254740993), true},
		{"a fraction is no INT64", 1.5, bigquery.IntegerFieldType, nil, false},
		{"2^63 is beyond INT64", math.Pow(2, 63), bigquery.IntegerFieldType, nil, false},
		{"-2^63 is the least INT64", -math.Pow(2, 63), bigquery.IntegerFieldType, int64(math.MinInt64), true},
		{"a string is no INT64", "3", bigquery.IntegerFieldType, nil, false},
		{"a float is a FLOAT64", 0.25, bigquery.FloatFieldType, 0.25, true},
		{"a small int64 is a FLOAT64", int64(1 << 60), bigquery.FloatFieldType, float64(1 << 60), true},
		{"an int64 float64 cannot hold is no FLOAT64", int64(9007199254740993), bigquery.FloatFieldType, nil, false},
		{"a bool is a BOOL", false, bigquery.BooleanFieldType, false, true},
		{"a string is no BOOL", "true", bigquery.BooleanFieldType, nil, false},
		{"a string is a STRING", "nginx", bigquery.StringFieldType, "nginx", true},
		{"a number is no STRING", 1.0, bigquery.StringFieldType, nil, false},
		{"null is nothing", nil, bigquery.IntegerFieldType, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := typedValue(tt.v, tt.t)
			if ok != tt.ok || ok && got != tt.want {
				t.Errorf("typedValue(%#v, %s) = %#v, %v; want %#v, %v", tt.v, tt.t, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestAlterRefusedOnlyForAnswersARetryCannotChange(t *testing.T) {
	gerr := func(code int, reason, msg string) error {
		return fmt.Errorf("add typed columns: %w", &googleapi.Error{Code: code, Message: msg, Errors: []googleapi.ErrorItem{{Reason: reason}}})
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"no permission to update the table", gerr(http.StatusForbidden, "accessDenied", "Access Denied"), true},
		{"a server without ALTER TABLE (the emulator's answer)", gerr(http.StatusBadRequest, "jobInternalError", "Statement not supported: AlterTableStatement"), true},
		{"an invalid query", gerr(http.StatusBadRequest, "invalidQuery", "Syntax error"), true},
		{"a permanent error", sink.Permanent(errors.New("refused")), true},
		{"a rate limit", gerr(http.StatusForbidden, "rateLimitExceeded", "Exceeded rate limits: too many table update operations"), false},
		{"a quota", gerr(http.StatusForbidden, "quotaExceeded", "Quota exceeded"), false},
		{"a concurrent change", gerr(http.StatusBadRequest, "invalidQuery", "Transaction is aborted due to concurrent update"), false},
		{"a server error", gerr(http.StatusInternalServerError, "backendError", "Backend error"), false},
		{"a network error", errors.New("dial tcp: connection refused"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := alterRefused(tt.err); got != tt.want {
				t.Errorf("alterRefused(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
