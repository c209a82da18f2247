package objectstore_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// rowsOf returns one row per value of attribute a (nil: the row lacks it).
func rowsOf(a string, values ...any) []busv1.Row {
	rows := make([]busv1.Row, len(values))
	for i, v := range values {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "t", Namespace: "team-a",
			Name: string(rune('a' + i)), UID: string(rune('a' + i)), Version: "v1", Kind: "Pod",
			Attributes: map[string]any{}}
		if v != nil {
			rows[i].Attributes[a] = v
		}
	}
	return rows
}

func TestColumnTypeOf(t *testing.T) {
	tests := []struct {
		name     string
		values   []any
		declared string
		prev     objectstore.ColumnType
		want     objectstore.ColumnType
	}{
		{"whole numbers are double", []any{float64(3), float64(1)}, "", "", objectstore.ColumnDouble},
		{"fractions are double", []any{0.5, float64(2)}, "", "", objectstore.ColumnDouble},
		{"Go integers are double", []any{int64(1 << 40), 7}, "", "", objectstore.ColumnDouble},
		{"json numbers are double", []any{json.Number("12"), json.Number("1e3")}, "", "", objectstore.ColumnDouble},
		{"strings are string", []any{"a", "b"}, "", "", objectstore.ColumnString},
		{"booleans are boolean", []any{true, false}, "", "", objectstore.ColumnBoolean},
		{"lists are json", []any{[]any{float64(1)}, []any{}}, "", "", objectstore.ColumnJSON},
		{"maps are json", []any{map[string]any{"a": "b"}}, "", "", objectstore.ColumnJSON},
		{"values of two kinds are json", []any{"x", float64(7)}, "", "", objectstore.ColumnJSON},
		{"a previous type does not override the values", []any{"x"}, "", objectstore.ColumnDouble, objectstore.ColumnString},
		{"missing values keep the previous file's type", []any{nil, nil}, "", objectstore.ColumnDouble, objectstore.ColumnDouble},
		{"an empty file keeps the previous file's type", nil, "", objectstore.ColumnBoolean, objectstore.ColumnBoolean},
		{"missing values without a previous file are string", []any{nil}, "", "", objectstore.ColumnString},
		{"an unknown previous type counts as none", []any{nil}, "", "int32", objectstore.ColumnString},
		{"missing values keep a previous int64", []any{nil}, "", objectstore.ColumnInt64, objectstore.ColumnInt64},
		// declared types
		{"int is int64", []any{float64(3), int64(1 << 60), json.Number("-9223372036854775808")}, "int", "", objectstore.ColumnInt64},
		{"int without values is int64", []any{nil}, "int", objectstore.ColumnDouble, objectstore.ColumnInt64},
		{"int in an empty file is int64", nil, "int", "", objectstore.ColumnInt64},
		{"a fraction in an int is inferred", []any{float64(3), 0.5}, "int", "", objectstore.ColumnDouble},
		{"a redacted int is inferred", []any{float64(3), map[string]any{"redacted": true}}, "int", "", objectstore.ColumnJSON},
		{"the list of a wildcard int is inferred", []any{[]any{float64(3)}}, "int", "", objectstore.ColumnJSON},
		{"an int beyond int64 is inferred", []any{float64(1 << 63)}, "int", "", objectstore.ColumnDouble},
		{"float is double", []any{float64(3), 0.5}, "float", "", objectstore.ColumnDouble},
		{"bool is boolean", []any{true}, "bool", "", objectstore.ColumnBoolean},
		{"bool without values is boolean", nil, "bool", objectstore.ColumnString, objectstore.ColumnBoolean},
		{"string is string", []any{"a"}, "string", "", objectstore.ColumnString},
		{"list is json", []any{[]any{"a"}}, "list", "", objectstore.ColumnJSON},
		{"map is json", nil, "map", "", objectstore.ColumnJSON},
		{"any is inferred", []any{float64(3)}, "any", "", objectstore.ColumnDouble},
		{"an unknown declared type is inferred", []any{float64(3)}, "decimal", "", objectstore.ColumnDouble},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := objectstore.ColumnTypeOf(rowsOf("x", tt.values...), "x", tt.declared, tt.prev); got != tt.want {
				t.Errorf("ColumnTypeOf = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestColumnTypesAcrossFiles encodes successive snapshots of one inventory
// as the sink does (each file gets the previous file's types) and reads the
// files back: a hot attribute's Parquet type does not depend on its values.
func TestColumnTypesAcrossFiles(t *testing.T) {
	files := []struct {
		name     string
		replicas []any
	}{
		{"whole numbers", []any{float64(3), float64(1)}},
		{"a fraction", []any{0.5, float64(2)}},
		{"no value at all", []any{nil}},
		{"no row", nil},
		{"large whole numbers", []any{float64(1 << 53), float64(-4)}},
	}
	l := objectstore.Layout{Format: "parquet", Compression: "none", HotAttributes: []string{"replicas"}}
	var prev map[string]objectstore.ColumnType
	for i, f := range files {
		t.Run("a file of "+f.name+" has a double column", func(t *testing.T) {
			env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "apps"}, uint64(i+1), 1,
				rowsOf("replicas", f.replicas...))
			if err != nil {
				t.Fatal(err)
			}
			env = env.Stamp("prod", time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
			obj, err := l.Encode(&env, prev)
			if err != nil {
				t.Fatal(err)
			}
			prev = obj.ColumnTypes
			if d := cmp.Diff(map[string]objectstore.ColumnType{"attr_replicas": objectstore.ColumnDouble}, obj.ColumnTypes); d != "" {
				t.Errorf("column types (-want +got):\n%s", d)
			}
			pf, err := objectstoretest.ReadParquet(obj.Body)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := pf.ColumnType("attr_replicas"), "optional double attr_replicas"; got != want {
				t.Errorf("the file's column is %q, want %q", got, want)
			}
			for j, v := range f.replicas {
				if got := pf.Values[j]["attr_replicas"]; got != v {
					t.Errorf("row %d holds %#v, want %#v", j, got, v)
				}
			}
		})
	}
}

// TestDeclaredColumnTypesAcrossFiles encodes successive snapshots of one
// inventory whose replicas attribute is declared int: the column is int64
// in every file, also one without values, and holds the exact integers an
// exporter decodes from the bus (beyond 2^53 too). A file before types were
// carried (no declared type) had a double column; the next file with the
// declared type is int64 and the pointer's types say so; a redacted value
// makes that file's column inferred.
func TestDeclaredColumnTypesAcrossFiles(t *testing.T) {
	const int64Column = "optional int64 attr_replicas (INT(64,true))"
	files := []struct {
		name     string
		declared string
		replicas []string // the rows' values, as the bus holds them
		want     objectstore.ColumnType
		column   string
		values   []any
	}{
		{"no declared type (an earlier release)", "", []string{"3", "1"}, objectstore.ColumnDouble,
			"optional double attr_replicas", []any{3.0, 1.0}},
		{"whole numbers", "int", []string{"3", "1"}, objectstore.ColumnInt64, int64Column, []any{int64(3), int64(1)}},
		{"integers beyond 2^53", "int", []string{"9007199254740993", "-9223372036854775808"}, objectstore.ColumnInt64,
			int64Column, []any{int64(9007199254740993), int64(-9223372036854775808)}},
		{"no value at all", "int", []string{"null"}, objectstore.ColumnInt64, int64Column, []any{nil}},
		{"no row", "int", nil, objectstore.ColumnInt64, int64Column, nil},
		{"a redacted value", "int", []string{"2", `{"reason":"sensitive-key","redacted":true}`}, objectstore.ColumnJSON,
			"optional binary attr_replicas (JSON)", []any{"2", `{"reason":"sensitive-key","redacted":true}`}},
	}
	l := objectstore.Layout{Format: "parquet", Compression: "none", HotAttributes: []string{"replicas"}}
	var prev map[string]objectstore.ColumnType
	for i, f := range files {
		t.Run(f.name, func(t *testing.T) {
			items := make([]string, len(f.replicas))
			for j, v := range f.replicas {
				items[j] = fmt.Sprintf(`{"targetNamespace":"team-a","targetName":"t","namespace":"team-a",`+
					`"name":"p%d","uid":"u%d","group":"","version":"v1","kind":"Pod","attributes":{"replicas":%s}}`, j, j, v)
			}
			var rows []busv1.Row
			if err := busv1.Unmarshal([]byte("["+strings.Join(items, ",")+"]"), &rows); err != nil {
				t.Fatal(err)
			}
			env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "apps"}, uint64(i+1), 1, rows)
			if err != nil {
				t.Fatal(err)
			}
			env = env.Stamp("prod", time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC))
			if f.declared != "" {
				env.AttributeTypes = busv1.AttributeTypes{"replicas": f.declared}
			}
			obj, err := l.Encode(&env, prev)
			if err != nil {
				t.Fatal(err)
			}
			prev = obj.ColumnTypes
			if d := cmp.Diff(map[string]objectstore.ColumnType{"attr_replicas": f.want}, obj.ColumnTypes); d != "" {
				t.Errorf("column types (-want +got):\n%s", d)
			}
			pf, err := objectstoretest.ReadParquet(obj.Body)
			if err != nil {
				t.Fatal(err)
			}
			if got := pf.ColumnType("attr_replicas"); got != f.column {
				t.Errorf("the file's column is %q, want %q", got, f.column)
			}
			for j, v := range f.values {
				if got := pf.Values[j]["attr_replicas"]; got != v {
					t.Errorf("row %d holds %#v, want %#v", j, got, v)
				}
			}
		})
	}
}
