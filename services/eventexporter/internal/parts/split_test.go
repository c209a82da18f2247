package parts_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/eventexporter/internal/parts"
)

func envelope(t *testing.T, n, pad int) busv1.Envelope {
	t.Helper()
	rows := make([]busv1.Row, n)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: fmt.Sprintf("pod-%03d", i),
			UID: fmt.Sprintf("uid-%03d", i), Version: "v1", Kind: "Pod", Attributes: map[string]any{"pad": strings.Repeat("x", pad*(i%3+1))}}
	}
	env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "web"}, 7, 3, rows)
	if err != nil {
		t.Fatal(err)
	}
	return env.Stamp("east", time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name      string
		rows, pad int
		max       int64
		wantParts int // 0: more than one, any number
		wantErr   string
	}{
		{"an envelope that fits is sent whole", 3, 10, 1 << 20, 1, ""},
		{"no limit sends the envelope whole", 200, 100, 0, 1, ""},
		{"an empty envelope that fits is sent whole", 0, 0, 1000, 1, ""},
		{"a large envelope is split into parts within the limit", 200, 100, 4000, 0, ""},
		{"a limit that holds one row per part yields one part per row", 5, 300, 1500, 5, ""},
		{"a row larger than the limit is a permanent error naming it", 3, 2000, 3000, 0, "Pod team-a/pod-001"},
		{"a limit below the bare envelope is a permanent error", 0, 0, 100, 0, "smaller than the envelope without items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := envelope(t, tt.rows, tt.pad)
			got, err := parts.Split(env, tt.max)
			if tt.wantErr != "" {
				if err == nil || !sink.IsPermanent(err) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Split error = %v, want a permanent error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Split: %v", err)
			}
			if tt.wantParts > 0 && len(got) != tt.wantParts {
				t.Fatalf("got %d parts, want %d", len(got), tt.wantParts)
			}
			if tt.wantParts == 0 && len(got) < 2 {
				t.Fatalf("got %d parts, want several", len(got))
			}
			checkParts(t, env, got, tt.max)
		})
	}
}

// checkParts checks each part's size, identity and numbering, and that the
// parts' items are the envelope's items in order.
func checkParts(t *testing.T, env busv1.Envelope, got []parts.Part, max int64) {
	t.Helper()
	var items []busv1.Row
	for i, p := range got {
		if max > 0 && int64(len(p.JSON)) > max {
			t.Errorf("part %d is %d bytes, over %d", i, len(p.JSON), max)
		}
		var back busv1.Envelope
		if err := json.Unmarshal(p.JSON, &back); err != nil {
			t.Fatalf("decode part %d: %v", i, err)
		}
		wantIndex, wantTotal := i, len(got)
		if len(got) == 1 {
			wantIndex, wantTotal = 0, 0
		}
		if back.PartIndex != wantIndex || back.PartTotal != wantTotal {
			t.Errorf("part %d numbered %d/%d, want %d/%d", i, back.PartIndex, back.PartTotal, wantIndex, wantTotal)
		}
		id := back
		id.Items, id.PartIndex, id.PartTotal = env.Items, env.PartIndex, env.PartTotal
		if d := cmp.Diff(env, id); d != "" {
			t.Errorf("part %d identity differs (-want +got):\n%s", i, d)
		}
		items = append(items, back.Items...)
	}
	if d := cmp.Diff(env.Items, items); d != "" && len(env.Items) > 0 {
		t.Errorf("items across parts (-want +got):\n%s", d)
	}
}

func TestPartLabel(t *testing.T) {
	env := envelope(t, 40, 200)
	ps, err := parts.Split(env, 3000)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ps[1].Label(), fmt.Sprintf("1/%d", len(ps)); got != want {
		t.Fatalf("label = %q, want %q", got, want)
	}
	whole, _ := parts.Split(env, 0)
	if got := whole[0].Label(); got != "" {
		t.Fatalf("label of a whole envelope = %q, want empty", got)
	}
}

func TestSplitJSONIsTheEnvelopeEncoding(t *testing.T) {
	for _, n := range []int{0, 1, 50} {
		t.Run(fmt.Sprintf("a snapshot of %d rows encodes as json.Marshal does, whole and in parts", n), func(t *testing.T) {
			env := envelope(t, n, 30)
			for _, max := range []int64{0, 1200} {
				ps, err := parts.Split(env, max)
				if err != nil {
					t.Fatal(err)
				}
				for i, p := range ps {
					want, err := json.Marshal(p.Envelope)
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(string(want), string(p.JSON)); d != "" {
						t.Fatalf("part %d JSON (-json.Marshal +Split):\n%s", i, d)
					}
				}
			}
		})
	}
}
