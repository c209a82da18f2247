package policy_test

import (
	"strings"
	"testing"

	"kollect.dev/kollect/services/control/internal/policy"
)

func TestOptionsViolation(t *testing.T) {
	tests := []struct {
		name, typ string
		options   map[string]string
		want      string // "" when allowed
	}{
		{"postgres runtime parameters are honoured", "postgres",
			map[string]string{"statement_timeout": "30000", "lock_timeout": "1000", "application_name": "inv"}, ""},
		{"no options at all are fine for every type", "kafka", nil, ""},
		{"a name that looks like a credential is refused before anything else", "postgres",
			map[string]string{"db_password": "x"}, "spec.options.db_password: the name looks like a credential"},
		{"a token-looking name is refused on a type with no options", "git",
			map[string]string{"apiToken": "x"}, "spec.options.apiToken: the name looks like a credential"},
		{"an option postgres does not honour is refused by name", "postgres",
			map[string]string{"search_path": "x"}, "spec.options.search_path: not an option of postgres sinks"},
		{"a type that honours none refuses any name", "mongodb",
			map[string]string{"maxPoolSize": "5"}, "spec.options.maxPoolSize: mongodb sinks honour no options"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := policy.OptionsViolation(tc.typ, tc.options)
			if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
				t.Fatalf("OptionsViolation = %q, want %q", got, tc.want)
			}
			if strings.Contains(got, `"x"`) || strings.Contains(got, "= x") {
				t.Errorf("the message quotes a value: %q", got)
			}
		})
	}
}
