package sink_test

import (
	"math"
	"testing"

	"kollect.dev/kollect/pkg/sink"
)

func TestRevision64(t *testing.T) {
	tests := []struct {
		name    string
		rev     uint64
		want    int64
		refused bool
	}{
		{name: "a small revision is kept", rev: 42, want: 42},
		{name: "the largest signed revision is kept", rev: math.MaxInt64, want: math.MaxInt64},
		{name: "a revision past 2^63 is refused and clamped", rev: math.MaxInt64 + 1, want: math.MaxInt64, refused: true},
		{name: "the largest revision is refused and clamped", rev: math.MaxUint64, want: math.MaxInt64, refused: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sink.Revision64(tc.rev); got != tc.want {
				t.Errorf("Revision64(%d) = %d, want %d", tc.rev, got, tc.want)
			}
			err := sink.CheckRevision(tc.rev)
			if tc.refused != (err != nil) {
				t.Fatalf("CheckRevision(%d) = %v, want refused=%v", tc.rev, err, tc.refused)
			}
			if err != nil && !sink.IsPermanent(err) {
				t.Errorf("CheckRevision(%d) = %v, want a permanent error", tc.rev, err)
			}
		})
	}
}
