package verify_test

import (
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/services/cli/internal/verify"
)

func revisions(envs []busv1.Envelope) []verify.Revision {
	var out []verify.Revision
	for _, e := range envs {
		out = append(out, verify.Revision{Revision: e.Revision, Checksum: e.Checksum, PreviousChecksum: e.PreviousChecksum,
			Rows: append([]busv1.Row(nil), e.Items...), Where: "test"})
	}
	return out
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name      string
		edit      func(revs []verify.Revision)
		wantRev   uint64
		wantInMsg string
	}{
		{"an untouched chain verifies", func([]verify.Revision) {}, 0, ""},
		{"a changed attribute is found at its revision", func(revs []verify.Revision) {
			revs[1].Rows[0] = row("a", 99)
		}, 2, "hash to"},
		{"a removed row is found", func(revs []verify.Revision) { revs[2].Rows = revs[2].Rows[:1] }, 3, "hash to"},
		{"a revision replaced whole, with its own checksum, breaks the chain", func(revs []verify.Revision) {
			other := revisions(chain(t))[0]
			revs[1].Rows, revs[1].Checksum = other.Rows, other.Checksum
		}, 3, "previousChecksum"},
		{"rows in another order verify", func(revs []verify.Revision) {
			r := revs[1].Rows
			r[0], r[2] = r[2], r[0]
		}, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			revs := revisions(chain(t))
			c.edit(revs)
			res, err := verify.Check(revs)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.wantRev == 0 && res.First != nil:
				t.Fatalf("mismatch %+v, want none", res.First)
			case c.wantRev == 0 && (res.Checked != 3 || res.Linked != 2):
				t.Fatalf("checked %d revisions and %d links, want 3 and 2", res.Checked, res.Linked)
			case c.wantRev != 0 && (res.First == nil || res.First.Revision != c.wantRev || !strings.Contains(res.First.Reason, c.wantInMsg)):
				t.Fatalf("mismatch %+v, want one at revision %d saying %q", res.First, c.wantRev, c.wantInMsg)
			}
		})
	}
}
