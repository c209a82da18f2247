package extract

import (
	"bytes"
	"encoding/json/jsontext"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

const decodeInput = `{"apiVersion":"apps/v1","kind":"Deployment",
	"metadata":{"name":"web","labels":{"a":"1"},"annotations":{"x":"<&>","y":"2"},"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}]},
	"spec":{"replicas":3,"paused":false,"ratio":0.25,"big":9223372036854775808,"neg":-1,"exp":1e3,"three":3.0,"nil":null,
		"template":{"spec":{"containers":[{"name":"a","image":"i:1","env":[{"name":"E","value":"v"}]},{"name":"b","image":"i:2"}]}},
		"list":[1,[2,{"k":"v","j":"w"}],"s"],"empty":{},"none":[]},
	"status":{"replicas":3}}`

// TestDecodeJSONIsPruneOfTheWholeValue decodes with a set and compares
// with Prune of apimachinery's decoding of the whole value: the same
// content, the same Go types.
func TestDecodeJSONIsPruneOfTheWholeValue(t *testing.T) {
	whole, err := runtime.Decode(unstructured.UnstructuredJSONScheme, []byte(decodeInput))
	if err != nil {
		t.Fatal(err)
	}
	content := whole.(*unstructured.Unstructured).Object
	withoutManaged := runtime.DeepCopyJSON(content)
	delete(withoutManaged["metadata"].(map[string]any), "managedFields")
	cases := []struct {
		name       string
		keep, skip *FieldSet
		want       map[string]any
	}{
		{"everything", nil, nil, content},
		{"a whole set is everything", NewFieldSet([]string{}), nil, content},
		{"paths through lists", NewFieldSet([]string{"spec", "template", "spec", "containers", "image"}, []string{"spec", "replicas"}),
			nil, nil},
		{"a path into nested lists", NewFieldSet([]string{"spec", "list", "k"}, []string{"metadata", "annotations", "x"}), nil, nil},
		{"numbers, null and empty values", NewFieldSet([]string{"spec", "ratio"}, []string{"spec", "big"}, []string{"spec", "neg"},
			[]string{"spec", "exp"}, []string{"spec", "three"}, []string{"spec", "nil"}, []string{"spec", "empty"}, []string{"spec", "none"}), nil, nil},
		{"skipping managedFields of the whole object", nil, NewFieldSet([]string{"metadata", "managedFields"}), withoutManaged},
		{"skipping managedFields of kept metadata", NewFieldSet([]string{"metadata"}), NewFieldSet([]string{"metadata", "managedFields"}),
			map[string]any{"metadata": withoutManaged["metadata"]}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == nil {
				want = Prune(content, c.keep)
			}
			dec := jsontext.NewDecoder(bytes.NewReader([]byte(decodeInput)))
			got, err := DecodeJSON(dec, c.keep, c.skip)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("DecodeJSON differs from Prune (-want +got):\n%s", d)
			}
			var copied bytes.Buffer
			dec.Reset(bytes.NewReader([]byte(decodeInput)))
			if err := CopyJSON(dec, jsontext.NewEncoder(&copied), c.keep, c.skip); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, decodeAll(t, copied.Bytes())); d != "" {
				t.Errorf("CopyJSON's output decodes differently (-want +got):\n%s", d)
			}
			var encoded bytes.Buffer
			if err := EncodeJSON(jsontext.NewEncoder(&encoded), got); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, decodeAll(t, encoded.Bytes())); d != "" {
				t.Errorf("EncodeJSON's output decodes differently (-want +got):\n%s", d)
			}
		})
	}
}

func decodeAll(t *testing.T, data []byte) any {
	t.Helper()
	v, err := DecodeJSON(jsontext.NewDecoder(bytes.NewReader(data)), nil, nil)
	if err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return v
}

// TestEncodeJSONKeepsIntegralFloatsFloats: 3.0 decodes as a float64, and
// must again once encoded.
func TestEncodeJSONKeepsIntegralFloatsFloats(t *testing.T) {
	in := map[string]any{"a": float64(3), "b": 1e300, "c": math.Copysign(0, -1), "d": 0.25, "e": int64(3)}
	var out bytes.Buffer
	if err := EncodeJSON(jsontext.NewEncoder(&out), in); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(any(in), decodeAll(t, out.Bytes())); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}
