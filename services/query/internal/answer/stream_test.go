package answer_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/query/internal/answer"
)

// manyRows returns n rows of web, ~n/256 chunks.
func manyRows(n int) []busv1.Row {
	rows := make([]busv1.Row, n)
	for i := range rows {
		rows[i] = row(fmt.Sprintf("app-%05d", i), fmt.Sprintf("uid-%05d", i), fmt.Sprintf("app:%d", i))
	}
	return rows
}

// edited returns rows with every kind of change: attributes changed,
// rows removed and added, a kind changed in place, and objects whose
// name changed under the same uid (moved in canonical order).
func edited(rows []busv1.Row) []busv1.Row {
	var out []busv1.Row
	for i, r := range rows {
		r.Attributes = map[string]any{"image": r.Attributes["image"]}
		switch {
		case i%101 == 0:
			continue // removed
		case i%97 == 0:
			r.Attributes["image"] = "app:new"
			r.Attributes["replicas"] = float64(3)
		case i%211 == 5:
			r.Name = "zz-" + r.Name // same uid, another place in canonical order
		case i%503 == 7:
			r.Kind = "StatefulSet"
		}
		out = append(out, r)
	}
	for i := range 40 {
		out = append(out, row(fmt.Sprintf("new-%03d", i), fmt.Sprintf("new-uid-%03d", i), "new:1"))
	}
	return out
}

// TestDiffPagesAreCompareOfTheWholeRevisions proves the streamed diff (one
// chunk of each revision at a time, shared chunks skipped) pages through
// exactly what Compare finds in the two revisions' rows, moved rows
// included, whether a revision is chunks or an inline envelope, and that
// its counts are the same.
func TestDiffPagesAreCompareOfTheWholeRevisions(t *testing.T) {
	before := manyRows(3000)
	after := edited(before)
	want := answer.Compare(before, after)
	wantCounts := map[string]int{}
	for _, c := range want {
		wantCounts[c.Change]++
	}
	for _, tt := range []struct {
		name                      string
		inlineBefore, inlineAfter bool
	}{{"chunks", false, false}, {"inline envelopes", true, true}, {"chunks then inline", false, true}} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			n, p := startBus(t)
			p.NoDelta = true // the counts compare the revisions too
			var evs []*busv1.SnapshotEvent
			for i, rows := range [][]busv1.Row{before, after} {
				p.Inline = []bool{tt.inlineBefore, tt.inlineAfter}[i]
				ev, err := p.Publish(ctx, rows, time.Date(2026, 1, 1, i, 0, 0, 0, time.UTC))
				if err != nil {
					t.Fatal(err)
				}
				evs = append(evs, ev)
			}
			h := answer.NewReader(n.JS, 0)
			for _, size := range []int{7, 5000} {
				var got []queryv1.RowChange
				total := -1
				for offset := 0; ; {
					page, n, err := h.Diff(ctx, evs[0], evs[1], offset, size)
					if err != nil {
						t.Fatal(err)
					}
					if total >= 0 && n != total {
						t.Fatalf("total %d, then %d", total, n)
					}
					total = n
					got, offset = append(got, page...), offset+len(page)
					if len(page) < size || offset >= total {
						break
					}
				}
				if total != len(want) {
					t.Errorf("pages of %d: total %d, want %d", size, total, len(want))
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("pages of %d (-want +got):\n%s", size, diff)
				}
			}
			revs, err := h.Revisions(ctx, web, "")
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Count(ctx, web, revs, 1); err != nil {
				t.Fatal(err)
			}
			got := map[string]int{queryv1.ChangeAdded: revs[1].Added, queryv1.ChangeChanged: revs[1].Changed, queryv1.ChangeRemoved: revs[1].Removed}
			if diff := cmp.Diff(wantCounts, got); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRowsPageReadsOnlyTheChunksItShows reads every page of a revision of
// 5,000 rows (~20 chunks): together they are the revision, and one page
// of 10 rows reads one or two chunks, not the revision.
func TestRowsPageReadsOnlyTheChunksItShows(t *testing.T) {
	ctx := context.Background()
	n, p := startBus(t)
	rows := manyRows(5000)
	ev, err := p.Publish(ctx, rows, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	want := append([]busv1.Row(nil), rows...)
	snapshot.Sort(want)
	h := answer.NewReader(n.JS, -1) // no cache: every chunk read is counted
	var got []busv1.Row
	for offset := 0; offset < len(rows); offset += 777 {
		page, err := h.RowsPage(ctx, ev, offset, 777)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page...)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	whole := h.BytesRead()
	h = answer.NewReader(n.JS, -1)
	page, err := h.RowsPage(ctx, ev, 2500, 10)
	if err != nil || len(page) != 10 || page[0].Name != want[2500].Name {
		t.Fatalf("page at 2500: %d rows, %v", len(page), err)
	}
	if h.BytesRead() > whole/5 {
		t.Errorf("a page of 10 rows read %d bytes, the whole revision %d", h.BytesRead(), whole)
	}
	if rest, err := h.RowsPage(ctx, ev, 4995, 10); err != nil || len(rest) != 5 {
		t.Errorf("the last page: %d rows, %v; want 5", len(rest), err)
	}
}

// TestRevisionsAreTheCurrentInventorys publishes a history without uids
// (a release before stamping), then an inventory's, then the history of an
// inventory recreated under the same name, numbered from 1 again: each uid
// reads its own revisions, the recreated one none of the unstamped ones
// before its renumbering, and no uid (no inventory now) only unstamped ones.
func TestRevisionsAreTheCurrentInventorys(t *testing.T) {
	ctx := context.Background()
	n, p := startBus(t)
	var all []*busv1.SnapshotEvent
	publishAll := func(states ...[]busv1.Row) {
		for _, rows := range states {
			ev, err := p.Publish(ctx, rows, time.Date(2026, 1, 1, len(all), 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, ev)
		}
	}
	publishAll(manyRows(2))
	p.UID = "old"
	publishAll(manyRows(3), manyRows(4))
	if err := p.Periodic(ctx, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	p.Recreated("new")
	publishAll(manyRows(5), manyRows(6))
	line := func(i int) string { return fmt.Sprint(all[i].Revision, " ", all[i].Checksum) }
	h := answer.NewReader(n.JS, 0)
	for uid, want := range map[string][]string{
		"old": {line(0), line(1), line(2)},
		"new": {line(3), line(4)},
		"":    {line(0)},
	} {
		revs, err := h.Revisions(ctx, web, uid)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range revs {
			got = append(got, fmt.Sprint(r.Entry.Revision, " ", r.Entry.Checksum))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("uid %q (-want +got):\n%s", uid, diff)
		}
	}
	if _, err := h.Revisions(ctx, busv1.NamespacedName{Namespace: "team-a", Name: "none"}, ""); !errors.Is(err, answer.ErrNotFound) {
		t.Errorf("an inventory without events: %v", err)
	}
}
