package v1alpha1_test

import (
	"encoding/json"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
)

func TestProfileReferenceSpellings(t *testing.T) {
	tests := []struct {
		name, in, name2, out string
		bad                  bool
	}{
		{name: "a bare name decodes and re-encodes as a name", in: `"apps"`, name2: "apps", out: `"apps"`},
		{name: "an object decodes and re-encodes as an object", in: `{"name":"apps"}`, name2: "apps", out: `{"name":"apps"}`},
		{name: "a number is kept verbatim and reported", in: `5`, out: `5`, bad: true},
		{name: "an object with an unknown field is reported", in: `{"name":"apps","namespace":"x"}`, out: `{"name":"apps","namespace":"x"}`, bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r v1alpha1.ProfileReference
			if err := json.Unmarshal([]byte(tc.in), &r); err != nil {
				t.Fatal(err)
			}
			if got := r.DecodeError() != nil; got != tc.bad {
				t.Errorf("DecodeError() = %v, want an error: %v", r.DecodeError(), tc.bad)
			}
			if !tc.bad && r.Name != tc.name2 {
				t.Errorf("Name = %q, want %q", r.Name, tc.name2)
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.out {
				t.Errorf("re-encoded as %s, want %s", b, tc.out)
			}
		})
	}
	t.Run("a reference built in Go encodes as an object", func(t *testing.T) {
		b, _ := json.Marshal(v1alpha1.ProfileReference{Name: "apps"})
		if string(b) != `{"name":"apps"}` {
			t.Errorf("got %s", b)
		}
	})
}
