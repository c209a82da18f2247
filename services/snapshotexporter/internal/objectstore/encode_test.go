package objectstore_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// TestJSONIsTheEnvelope checks that the JSON object, written in one pass
// over the rows, is byte for byte the envelope's own MarshalJSON.
func TestJSONIsTheEnvelope(t *testing.T) {
	parts := fixture(t)
	parts.PartIndex, parts.PartTotal = 1, 3
	html := fixture(t)
	html.Items[0].Attributes["note"] = "<a href=\"x\">&</a> \u2028"
	empty := fixture(t)
	empty.Items, empty.ItemCount = nil, 0
	for name, env := range map[string]busv1.Envelope{"a snapshot": fixture(t), "a part": parts,
		"markup and line separators": html, "no rows": empty} {
		t.Run("the json object of "+name+" is the envelope's MarshalJSON", func(t *testing.T) {
			l := objectstore.Layout{Format: "json", Compression: "none", PathTemplate: objectstore.DefaultPathTemplate}
			obj, err := l.Encode(&env, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(env)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(want)+"\n", string(obj.Body)); d != "" {
				t.Errorf("(-MarshalJSON +object):\n%s", d)
			}
		})
	}
}
