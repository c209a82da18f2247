package replayer

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/history"
)

// TestSelectEntriesTakesOnlyTheCurrentInventorysRevisions: events without
// a uid (older releases) count as the current inventory's, events of
// another uid never do, even where their revision numbers collide (a new
// inventory of a reused name starts again at 1); replays and deletions are
// never selected.
func TestSelectEntriesTakesOnlyTheCurrentInventorysRevisions(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	e := func(seq, rev uint64, uid string, hour int) history.Entry {
		return history.Entry{Sequence: seq, Revision: rev, InventoryUID: uid, Time: t0.Add(time.Duration(hour) * time.Hour), Reason: busv1.ReasonChange}
	}
	replayed := e(6, 2, "new", 6)
	replayed.Replay = true
	deleted := e(7, 3, "old", 7)
	deleted.Reason = busv1.ReasonDeleted
	idx := []history.Entry{e(1, 1, "", 1), e(2, 2, "old", 2), e(3, 3, "old", 3), e(4, 2, "new", 4), e(5, 3, "new", 5), replayed, deleted}
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "apps"}
	tests := []struct {
		name string
		req  busv1.ReplayRequest
		want []uint64 // sequences
		err  string
	}{
		{"the latest", busv1.ReplayRequest{}, []uint64{5}, ""},
		{"a revision both published: the current one's", busv1.ReplayRequest{Revision: 2}, []uint64{4}, ""},
		{"a revision without a uid", busv1.ReplayRequest{Revision: 1}, []uint64{1}, ""},
		{"a backfill", busv1.ReplayRequest{Backfill: true}, []uint64{1, 4, 5}, ""},
		{"a time only the earlier inventory had a revision at", busv1.ReplayRequest{At: t0.Add(150 * time.Minute)}, []uint64{1}, ""},
		{"a time before any of ours", busv1.ReplayRequest{At: t0}, nil,
			"no retained revision of team-a/apps was created at or before 2026-11-30T00:00:00Z (retained revisions 1 to 3, the oldest created 2026-11-30T01:00:00Z)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Inventory = inv
			sel, err := selectEntries(tt.req, "new", idx)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []uint64
			for _, s := range sel {
				got = append(got, s.Sequence)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("selected sequences (-want +got):\n%s", diff)
			}
		})
	}
	onlyOld := []history.Entry{e(2, 2, "old", 2), e(3, 3, "old", 3)}
	_, err := selectEntries(busv1.ReplayRequest{Inventory: inv, Backfill: true}, "new", onlyOld)
	if want := "the bus holds no revision of team-a/apps; 2 retained revision(s) that would match belong to an earlier inventory of that name (uid old)"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a backfill of a new inventory with only its predecessor's history: %v, want %s", err, want)
	}
}
