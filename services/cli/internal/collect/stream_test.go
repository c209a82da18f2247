package collect

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// The documents readValue must decode exactly as apimachinery does.
var jsonDocs = []string{
	`{"a":1,"b":-2,"c":1.5,"d":1e3,"e":9223372036854775807,"f":9223372036854775808,"g":-0.0}`,
	`{"s":"x\"y\\u00e9\n","t":true,"f":false,"n":null,"e":{},"l":[]}`,
	`{"nested":{"list":[1,"two",{"three":[3.25,null]}],"deep":{"deeper":{"deepest":[[[]]]}}}}`,
	`{"metadata":{"name":"web","labels":{"app":"web"},"annotations":{"k":"{\"json\":\"in a string\"}"}},"spec":{"replicas":3}}`,
	`{"dup":1,"dup":2}`,
	`[1,2,3]`, `"s"`, `7`, `null`,
}

func TestReadValueDecodesAsApimachinery(t *testing.T) {
	for _, doc := range jsonDocs {
		var want any
		if err := utiljson.Unmarshal([]byte(doc), &want); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		got, err := readValue(newDecoder(strings.NewReader(doc)))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-apimachinery +readValue):\n%s", doc, d)
		}
	}
}

func FuzzReadValue(f *testing.F) {
	for _, doc := range jsonDocs {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if !json.Valid([]byte(doc)) {
			return
		}
		var want any
		if err := utiljson.Unmarshal([]byte(doc), &want); err != nil {
			return // invalid UTF-8 and the like: apimachinery refuses too
		}
		got, err := readValue(newDecoder(strings.NewReader(doc)))
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%q (-apimachinery +readValue):\n%s", doc, d)
		}
	})
}

func TestDecodeList(t *testing.T) {
	decode := func(doc string) (cont string, early []string, names []string, err error) {
		cont, err = decodeList(iotest.OneByteReader(strings.NewReader(doc)), nil, func(c string) { early = append(early, c) },
			func(obj map[string]any) { names = append(names, obj["metadata"].(map[string]any)["name"].(string)) })
		return
	}
	t.Run("the continue token is handed over before the items are read", func(t *testing.T) {
		cont, early, names, err := decode(`{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"7","continue":"abc"},
			"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`)
		if err != nil || cont != "abc" || !cmp.Equal(early, []string{"abc"}) || !cmp.Equal(names, []string{"a", "b"}) {
			t.Errorf("cont %q, early %v, names %v, err %v", cont, early, names, err)
		}
	})
	t.Run("a last page has no continue token; null items are none", func(t *testing.T) {
		cont, _, names, err := decode(`{"items":null,"metadata":{}}`)
		if err != nil || cont != "" || len(names) != 0 {
			t.Errorf("cont %q, names %v, err %v", cont, names, err)
		}
	})
	for name, doc := range map[string]string{
		"a truncated page":          `{"metadata":{"continue":"x"},"items":[{"metadata":{"name":"a"}},{"meta`,
		"an array":                  `[{"metadata":{"name":"a"}}]`,
		"items that are no list":    `{"items":{"a":1}}`,
		"an item that is no object": `{"items":[1]}`,
		"an empty body":             ``,
	} {
		t.Run(name+" is an error", func(t *testing.T) {
			if _, _, _, err := decode(doc); err == nil {
				t.Errorf("%s decoded without error", doc)
			}
		})
	}
}

func TestWriteRecordJSONIsJSONMarshal(t *testing.T) {
	var rec Record
	if err := json.Unmarshal([]byte(`{"context":"kind-a","inventory":"team-a/web","path":"kind-a/inventory/team-a/web.ndjson",
		"envelope":{"schemaVersion":"kollect.dev/v1alpha1","checksum":"c","revision":0,"generation":2,"cluster":"kind-a",
		"inventory":{"namespace":"team-a","name":"web"},"itemCount":2,"exportedAt":"2026-12-02T00:00:00Z","items":[
		{"targetNamespace":"team-a","targetName":"t","namespace":"team-a","name":"a","uid":"1","group":"apps","version":"v1","kind":"Deployment","attributes":{"image":"<nginx>","n":1}},
		{"targetNamespace":"team-a","targetName":"t","namespace":"team-a","name":"b","uid":"2","group":"apps","version":"v1","kind":"Deployment","attributes":{}}]}}`), &rec); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]Record{"with items": rec, "without items": {Context: "c", Inventory: "x/y"}} {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			if err := writeRecordJSON(&got, r); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("streamed:\n%s\njson.Marshal:\n%s", got.String(), want)
			}
		})
	}
}
