package tree

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestJSONToYAMLMatchesSigsYAML pins the fast converter to
// sigs.k8s.io/yaml.JSONToYAML, the reference the contract names.
func TestJSONToYAMLMatchesSigsYAML(t *testing.T) {
	tests := []struct{ name, json string }{
		{"small integers", `{"a":1,"b":-2,"c":0}`},
		{"floats", `{"a":1.5,"b":-0.25,"c":1e21,"d":1.0e-7,"e":2.50}`},
		{"integers beyond float64 precision", `{"a":12345678901234567890,"b":9007199254740993}`},
		{"strings that look like other types", `{"a":"true","b":"1","c":"null","d":"~","e":"0x1F","f":"1e3","g":"yes","h":"","i":" x "}`},
		{"special characters", `{"a":"line1\nline2","b":"tab\there","c":"colon: x","d":"# hash","e":"- dash","f":"quote \"x\"","g":"ünïcode","h":"\u0001"}`},
		{"nested lists and maps", `{"z":[{"b":1,"a":[1,[2,3]]},[],{}],"a":{"nested":{"deep":[null,true,false]}}}`},
		{"keys that sort naturally", `{"a10":1,"a2":2,"B":3,"a":4,"1":5,"10":6,"2":7}`},
		{"a top-level list", `[1,"two",{"three":3}]`},
		{"an empty list", `[]`},
		{"an empty map", `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := yaml.JSONToYAML([]byte(tt.json))
			if err != nil {
				t.Fatalf("sigs.k8s.io/yaml: %v", err)
			}
			got, err := jsonToYAML([]byte(tt.json))
			if err != nil {
				t.Fatalf("jsonToYAML: %v", err)
			}
			if d := cmp.Diff(string(want), string(got)); d != "" {
				t.Fatalf("(-sigs.k8s.io/yaml +jsonToYAML):\n%s", d)
			}
		})
	}
}
