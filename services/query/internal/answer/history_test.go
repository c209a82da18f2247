package answer_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/query/internal/answer"
	"kollect.dev/kollect/services/query/querytest"
)

func row(name, uid, image string) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: "workloads", Namespace: "team-a", Name: name, UID: uid,
		Group: "apps", Version: "v1", Kind: "Deployment", Attributes: map[string]any{"image": image}}
}

type counted struct{ Revision, Added, Changed, Removed int }

// web is the inventory the tests publish.
var web = busv1.NamespacedName{Namespace: "team-a", Name: "web"}

// startBus starts a provisioned bus and returns a publisher of web's
// history on it.
func startBus(t *testing.T) (*testenv.NATS, *querytest.Publisher) {
	t.Helper()
	ctx := context.Background()
	n := testenv.StartNATS(t)
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	p, err := querytest.NewPublisher(ctx, n.JS, web)
	if err != nil {
		t.Fatal(err)
	}
	return n, p
}

// publish publishes states (one revision each, an hour apart) with or
// without deltas and returns the inventory's revisions, counted.
func publish(t *testing.T, noDelta bool, states [][]busv1.Row) (*answer.Reader, []answer.Revision) {
	t.Helper()
	ctx := context.Background()
	n, p := startBus(t)
	p.NoDelta = noDelta
	for i, rows := range states {
		if _, err := p.Publish(ctx, rows, time.Date(2026, 1, 1, i, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
	}
	h := answer.NewReader(n.JS, 0)
	revs, err := h.Revisions(ctx, web, "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range revs {
		if err := h.Count(ctx, web, revs, i); err != nil {
			t.Fatal(err)
		}
	}
	return h, revs
}

func TestChangeCountsAndTimelineWithAndWithoutDeltas(t *testing.T) {
	states := [][]busv1.Row{
		{row("api", "a1", "api:1"), row("web", "w", "web:1")},
		{row("api", "a1", "api:2"), row("web", "w", "web:1"), row("db", "d", "pg:17")},
		{row("web", "w", "web:1"), row("db", "d", "pg:17")},                            // api deleted
		{row("api", "a2", "api:2"), row("web", "w", "web:1"), row("db", "d", "pg:18")}, // api re-created, new UID
		{}, // everything gone
	}
	wantCounts := []counted{{1, 2, 0, 0}, {2, 1, 1, 0}, {3, 0, 0, 1}, {4, 1, 1, 0}, {5, 0, 0, 3}}
	wantTimeline := []string{"1 added a1", "2 changed a1", "3 removed a1", "4 added a2", "5 removed a2"}
	for _, noDelta := range []bool{false, true} {
		name := "from the deltas"
		if noDelta {
			name = "from whole revisions when events carry no delta"
		}
		t.Run(name, func(t *testing.T) {
			h, revs := publish(t, noDelta, states)
			var got []counted
			for _, r := range revs {
				got = append(got, counted{int(r.Entry.Revision), r.Added, r.Changed, r.Removed})
			}
			if diff := cmp.Diff(wantCounts, got); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			o := answer.Object{Kind: "Deployment", Namespace: "team-a", Name: "api"}
			for _, limit := range []int{0, 2} {
				var tl []string
				for from := 0; from < len(revs); {
					entries, next, err := h.Timeline(context.Background(), web, revs, from, len(revs), o, limit)
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range entries {
						uid := e.Key.UID
						tl = append(tl, itoa(e.Revision)+" "+e.Change+" "+uid)
					}
					from = next
				}
				if diff := cmp.Diff(wantTimeline, tl); diff != "" {
					t.Errorf("timeline by name, %d a page (-want +got):\n%s", limit, diff)
				}
			}
		})
	}
}

func TestCompareNamesEveryAttributeAndIdentityChange(t *testing.T) {
	before := []busv1.Row{row("api", "a", "api:1"), row("gone", "g", "x")}
	moved := row("api-renamed", "a", "api:1")
	moved.Attributes["replicas"] = float64(2)
	after := []busv1.Row{moved, row("new", "n", "y")}
	got := answer.Compare(before, after)
	want := []queryv1.RowChange{
		{Change: "changed", Key: moved.Key(), Before: &before[0], After: &after[0], Attributes: []queryv1.AttributeChange{
			{Name: ".name", Before: "api", After: "api-renamed"}, {Name: "replicas", Before: nil, After: float64(2)}}},
		{Change: "removed", Key: before[1].Key(), Before: &before[1]},
		{Change: "added", Key: after[1].Key(), After: &after[1]},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Compare (-want +got):\n%s", diff)
	}
	if got := answer.Compare(after, after); len(got) != 0 {
		t.Errorf("a revision compared with itself: %v", got)
	}
}

func TestSelectPicksByRevisionOrTime(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 1, 1, h, 0, 0, 0, time.UTC) }
	revs := []answer.Revision{{Entry: history.Entry{Revision: 3, Time: at(1)}}, {Entry: history.Entry{Revision: 5, Time: at(3)}}}
	tests := []struct {
		name string
		sel  answer.Selector
		want int // -1: not found
	}{
		{"a kept revision", answer.Selector{Revision: 5}, 1},
		{"a revision not kept", answer.Selector{Revision: 4}, -1},
		{"a time between revisions", answer.Selector{At: at(2)}, 0},
		{"a revision's own time", answer.Selector{At: at(3)}, 1},
		{"a time before the history", answer.Selector{At: at(0)}, -1},
		{"nothing: the latest", answer.Selector{}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i, err := answer.Select(revs, tt.sel)
			if tt.want < 0 {
				if err == nil {
					t.Errorf("picked %d", i)
				}
				return
			}
			if err != nil || i != tt.want {
				t.Errorf("picked %d, %v; want %d", i, err, tt.want)
			}
		})
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
