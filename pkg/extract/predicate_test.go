package extract

import (
	"strings"
	"testing"
)

func TestPredicate(t *testing.T) {
	obj := decodeObject(t, podObject)
	tests := []struct {
		name    string
		expr    string
		want    bool
		wantErr string
	}{
		{"a true policy matches", `object.metadata.labels.app == "web"`, true, ""},
		{"a false policy does not", "object.spec.replicas > 5", false, ""},
		{"a missing field does not match", "object.spec.missing == 1", false, ""},
		{"a runtime error is an error", "int(object.metadata.name) > 0", false, "evaluate CEL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := CompilePredicate(tc.expr, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Match(obj)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Match = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	if _, err := CompilePredicate(`"not a bool"`, 0); err == nil || !strings.Contains(err.Error(), "yields string, want bool") {
		t.Errorf("a string policy compiled: %v", err)
	}
}
