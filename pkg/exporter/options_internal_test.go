package exporter

import (
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

func TestUnknownOptionsAreRefusedForEveryBackend(t *testing.T) {
	for _, tc := range []struct {
		name, typ, spec, want string
	}{
		{"an option a type does not honour", "kafka", `{"options":{"linger.ms":"5"}}`, "spec.options.linger.ms: kafka sinks honour no options"},
		{"a postgres option outside the list", "postgres", `{"options":{"work_mem":"4MB"}}`, "spec.options.work_mem"},
		{"an honoured postgres option", "postgres", `{"options":{"statement_timeout":"30000"}}`, ""},
		{"no options", "git", `{}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := unknownOption(busv1.SinkConfig{Type: tc.typ, Spec: []byte(tc.spec)})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unknownOption: %v", err)
				}
				return
			}
			if !sink.IsPermanent(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("unknownOption: %v, want a permanent error containing %q", err, tc.want)
			}
		})
	}
}
