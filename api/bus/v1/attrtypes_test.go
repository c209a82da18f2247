package busv1_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

func TestRowDecodingKeepsLargeIntegersExact(t *testing.T) {
	in := `[{"targetNamespace":"a","targetName":"t","namespace":"a","name":"n","uid":"u","group":"","version":"v1",` +
		`"kind":"Pod","attributes":{"big":9007199254740993,"min":-9223372036854775808,"small":3,"half":0.5,` +
		`"huge":1e300,"beyond":18446744073709551616,"nested":{"l":[9223372036854775807,1]},"s":"9007199254740993"}}]`
	var rows []busv1.Row
	if err := busv1.Unmarshal([]byte(in), &rows); err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	want := map[string]any{"big": int64(9007199254740993), "min": int64(-9223372036854775808), "small": float64(3),
		"half": 0.5, "huge": 1e300, "beyond": 18446744073709551616.0,
		"nested": map[string]any{"l": []any{int64(9223372036854775807), float64(1)}}, "s": "9007199254740993"}
	if d := cmp.Diff(want, r.Attributes); d != "" {
		t.Errorf("attributes (-want +got):\n%s", d)
	}
	out, err := json.Marshal(r.Attributes["big"])
	if err != nil || string(out) != "9007199254740993" {
		t.Errorf("big re-encodes as %s (%v)", out, err)
	}
	for _, bad := range []string{`[{"attributes":{"x":1e400,"y":9007199254740993}}]`, `[{"attributes":{"y":9007199254740993}}] x`} {
		if err := busv1.Unmarshal([]byte(bad), &rows); err == nil {
			t.Errorf("%s decoded without an error", bad)
		}
	}
	for _, v := range []any{&busv1.SnapshotEvent{}, &busv1.Envelope{}, &busv1.Delta{}} {
		if err := busv1.Unmarshal([]byte(`{"envelope":{"items":[{"attributes":{"a":9007199254740993}}]},"items":[{"attributes":{"a":9007199254740993}}],"upserts":[{"attributes":{"a":9007199254740993}}]}`), v); err != nil {
			t.Fatal(err)
		}
		var a any
		switch v := v.(type) {
		case *busv1.SnapshotEvent:
			a = v.Envelope.Items[0].Attributes["a"]
		case *busv1.Envelope:
			a = v.Items[0].Attributes["a"]
		case *busv1.Delta:
			a = v.Upserts[0].Attributes["a"]
		}
		if a != int64(9007199254740993) {
			t.Errorf("a %T decodes %#v", v, a)
		}
	}
}

func TestEnvelopeDoesNotSerialiseAttributeTypes(t *testing.T) {
	env := busv1.Envelope{SchemaVersion: busv1.SchemaVersion, ExportedAt: time.Unix(0, 0),
		AttributeTypes: busv1.AttributeTypes{"replicas": "int"}}
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["attributeTypes"]; ok {
		t.Errorf("the envelope document carries attributeTypes: %s", b)
	}
}

func TestMergeAttributeTypes(t *testing.T) {
	for _, tt := range []struct {
		name string
		sets []busv1.AttributeTypes
		want busv1.AttributeTypes
	}{
		{"none", nil, nil},
		{"one target", []busv1.AttributeTypes{{"replicas": "int", "image": "string", "x": "any"}},
			busv1.AttributeTypes{"replicas": "int", "image": "string"}},
		{"agreeing targets", []busv1.AttributeTypes{{"replicas": "int"}, {"replicas": "int", "cpu": "float"}},
			busv1.AttributeTypes{"replicas": "int", "cpu": "float"}},
		{"a conflict drops the attribute", []busv1.AttributeTypes{{"replicas": "int", "a": "bool"}, {"replicas": "float"}, {"replicas": "int"}},
			busv1.AttributeTypes{"a": "bool"}},
		{"any on one target drops the attribute", []busv1.AttributeTypes{{"replicas": "int"}, {"replicas": "any"}},
			nil},
		{"a nil set declares nothing", []busv1.AttributeTypes{{"replicas": "int"}, nil}, busv1.AttributeTypes{"replicas": "int"}},
		{"an empty set declares nothing", []busv1.AttributeTypes{{"replicas": "int"}, {}},
			busv1.AttributeTypes{"replicas": "int"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, busv1.MergeAttributeTypes(tt.sets...)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
