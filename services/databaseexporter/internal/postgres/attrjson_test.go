package postgres

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAttributesEncodeAsEncodingJSONDoes(t *testing.T) {
	type custom struct {
		A string `json:"a"`
	}
	for _, c := range []struct {
		name  string
		attrs map[string]any
	}{
		{"nil is an empty object", nil},
		{"strings with quotes, backslashes, control characters and unicode", map[string]any{
			"s": "say \"hi\"\\ \n\r\t\x00\x01\x1f <&> é ✓ 🚀 \u2028", "k\"ey\n": "v"}},
		{"invalid UTF-8 becomes U+FFFD", map[string]any{"bad": "a\xffb\xc3"}},
		{"numbers as encoding/json formats them", map[string]any{"a": 1.0, "b": -0.5, "c": 1e21, "d": 1e-7, "e": 123456789.125,
			"f": 0.0, "g": 1e20, "h": 5e-324, "i": math.MaxFloat64, "j": 42, "k": int64(-7)}},
		{"nested maps, lists and null", map[string]any{"m": map[string]any{"z": []any{1.0, "x", true, nil, map[string]any{}}, "a": []any{}},
			"l": []string{"a", "b"}, "nl": []string(nil), "nm": map[string]any(nil), "n": nil, "t": true}},
		{"other types through encoding/json", map[string]any{"c": custom{A: "x"}, "u": uint8(3), "f32": float32(1.5)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := appendAttributes([]byte("prefix"), c.attrs)
			if err != nil {
				t.Fatal(err)
			}
			want := []byte("{}")
			if c.attrs != nil {
				if want, err = json.Marshal(c.attrs); err != nil {
					t.Fatal(err)
				}
			}
			var g, w any
			if err := json.Unmarshal(got[len("prefix"):], &g); err != nil {
				t.Fatalf("invalid JSON %s: %v", got, err)
			}
			if err := json.Unmarshal(want, &w); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(w, g); d != "" {
				t.Fatalf("decoded (-encoding/json +ours):\n%s\nours: %s", d, got)
			}
		})
	}
}

func TestAttributesRefuseWhatJSONCannotHold(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), func() {}} {
		if _, err := appendAttributes(nil, map[string]any{"x": v}); err == nil {
			t.Errorf("%T %v encoded without error", v, v)
		}
	}
}

func BenchmarkAttributes(b *testing.B) {
	attrs := map[string]any{"image": "registry.example.com/team-001/app:v1.2.0", "replicas": 3.0,
		"labels": map[string]any{"app": "web", "team": "team-001", "tier": "frontend"}, "ready": true}
	b.Run("ours", func(b *testing.B) {
		var buf []byte
		for range b.N {
			buf, _ = appendAttributes(buf[:0], attrs)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for range b.N {
			_, _ = json.Marshal(attrs)
		}
	})
}
