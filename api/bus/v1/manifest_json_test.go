package busv1

import (
	"encoding/json"
	"testing"
)

func TestManifestAppendJSONIsWhatEncodingJSONWrites(t *testing.T) {
	for _, m := range []Manifest{
		{Chunks: []Chunk{}},
		{Inventory: NamespacedName{Namespace: "team-a", Name: "web"}, Checksum: "abc", ItemCount: 3, Bytes: 900,
			Chunks: []Chunk{{Digest: "d1", Rows: 2, Bytes: 600}, {Digest: "d2", Rows: 1, Bytes: 300}}},
		{Inventory: NamespacedName{Name: "odd \"name\" <&> é\n"}, Chunks: []Chunk{{Digest: "x"}}},
	} {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("AppendJSON = %s\nencoding/json = %s", got, want)
		}
	}
}
