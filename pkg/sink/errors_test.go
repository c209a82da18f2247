package sink_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"kollect.dev/kollect/pkg/sink"
)

func TestErrorClassification(t *testing.T) {
	base := errors.New("401 unauthorized")
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"a plain error is transient", base, false},
		{"a marked error is permanent", sink.Permanent(base), true},
		{"wrapping keeps a permanent error permanent", fmt.Errorf("write s3://b: %w", sink.Permanent(base)), true},
		{"a cancelled context is transient", context.Canceled, false},
		{"nil is not permanent", sink.Permanent(nil), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sink.IsPermanent(tc.err); got != tc.want {
				t.Fatalf("IsPermanent(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
	if err := sink.Permanent(base); !errors.Is(err, base) || err.Error() != base.Error() {
		t.Fatalf("Permanent changed the error: %v", err)
	}
}
