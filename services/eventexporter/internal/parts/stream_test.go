package parts_test

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/services/eventexporter/internal/parts"
)

// TestAStreamedSnapshotSendsTheLoadedSnapshotsParts streams snapshots
// (header-only, rows read from Snapshot.Rows) and compares every part sent,
// byte for byte, with Split of the loaded envelope; rows carry characters
// encoding/json escapes (HTML, U+2028) and the canonical encoding does not
// all escape.
func TestAStreamedSnapshotSendsTheLoadedSnapshotsParts(t *testing.T) {
	tests := []struct {
		name      string
		rows, pad int
		max       int64
	}{
		{"an empty snapshot that fits is sent whole", 0, 0, 1000},
		{"a snapshot that fits is sent whole", 3, 10, 1 << 20},
		{"a snapshot exactly one byte too large is split", 3, 10, 0}, // max set below
		{"a large snapshot is split into parts within the limit", 200, 100, 4000},
		{"a limit that holds one row per part yields one part per row", 5, 300, 1500},
		{"HTML characters count escaped in the parts' sizes", 300, 20, 2500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := envelope(t, tt.rows, tt.pad)
			for i := range env.Items {
				env.Items[i].Attributes["html"] = "<a href=\"x&y\">\u2028é</a>"
			}
			max := tt.max
			if max == 0 {
				whole, err := parts.Split(env, 0)
				if err != nil {
					t.Fatal(err)
				}
				max = int64(len(whole[0].JSON)) - 1
			}
			want, err := parts.Split(env, max)
			if err != nil {
				t.Fatal(err)
			}
			var got []parts.Part
			err = parts.Stream(context.Background(), sinktest.Streamed(sink.Snapshot{Envelope: env}), max, func(p parts.Part) error {
				got = append(got, p)
				return nil
			})
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if len(got) != len(want) {
				t.Fatalf("streamed %d parts, Split gives %d", len(got), len(want))
			}
			for i := range want {
				if d := cmp.Diff(string(want[i].JSON), string(got[i].JSON)); d != "" {
					t.Fatalf("part %d (-Split +Stream):\n%s", i, d)
				}
				if got[i].Label() != want[i].Label() {
					t.Errorf("part %d labelled %q, want %q", i, got[i].Label(), want[i].Label())
				}
			}
			checkParts(t, env, got, max)
		})
	}
}

// TestAStreamedSnapshotFailsAsSplitDoes: the permanent errors of Split, and
// a stream whose row count is not the header's, an error from send and an
// error of the stream stop it.
func TestAStreamedSnapshotFailsAsSplitDoes(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name      string
		rows, pad int
		max       int64
		snap      func(sink.Snapshot) sink.Snapshot
		send      error
		permanent bool
		wantErr   string
	}{
		{"a row larger than the limit is a permanent error naming it", 3, 2000, 3000, nil, nil, true, "Pod team-a/pod-001"},
		{"a limit below the bare envelope is a permanent error", 3, 100, 200, nil, nil, true, "smaller than the envelope without items"},
		{"a row count other than the header's is an error", 3, 10, 1 << 20, func(s sink.Snapshot) sink.Snapshot {
			s.Envelope.ItemCount++
			return s
		}, nil, false, "streamed 3 rows, its header says 4"},
		{"an error of the stream ends it", 3, 10, 1 << 20, func(s sink.Snapshot) sink.Snapshot {
			s.Stream = func(context.Context) iter.Seq2[json.RawMessage, error] {
				return func(yield func(json.RawMessage, error) bool) { yield(nil, boom) }
			}
			return s
		}, nil, false, "boom"},
		{"an error of send ends it", 200, 100, 4000, nil, boom, false, "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sinktest.Streamed(sink.Snapshot{Envelope: envelope(t, tt.rows, tt.pad)})
			if tt.snap != nil {
				s = tt.snap(s)
			}
			sent := 0
			err := parts.Stream(context.Background(), s, tt.max, func(parts.Part) error { sent++; return tt.send })
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || sink.IsPermanent(err) != tt.permanent {
				t.Fatalf("Stream error = %v, want one containing %q (permanent %v)", err, tt.wantErr, tt.permanent)
			}
			if tt.send != nil && sent != 1 {
				t.Errorf("send was called %d times after failing", sent)
			}
		})
	}
}
