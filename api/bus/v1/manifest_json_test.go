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
		{Inventory: NamespacedName{Namespace: "team-a", Name: "web"}, Checksum: "abc", ItemCount: 3, Bytes: 900,
			Pages: []Page{{Digest: "p1", Size: 120, Chunks: 2, Rows: 3, Bytes: 900}, {Digest: "p2"}}},
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

func TestManifestPageAppendJSONIsWhatEncodingJSONWrites(t *testing.T) {
	for _, p := range []ManifestPage{
		{},
		{Chunks: []Chunk{}},
		{Chunks: []Chunk{{Digest: "d1", Rows: 2, Bytes: 600}, {Digest: "d2", Rows: 1, Bytes: 300}}},
	} {
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("AppendJSON = %s\nencoding/json = %s", got, want)
		}
	}
}
