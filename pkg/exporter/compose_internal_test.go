package exporter

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// crow is a row of target t named name with uid and version v.
func crow(t, name, uid string, v int) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: t, Namespace: "team-a", Name: name, UID: uid,
		Version: "v1", Kind: "Pod", Attributes: map[string]any{"v": v}}
}

func ckey(t, uid string) busv1.RowKey {
	return busv1.RowKey{TargetNamespace: "team-a", TargetName: t, UID: uid}
}

func cdelta(base uint64, ups []busv1.Row, dels ...busv1.RowKey) *busv1.Delta {
	if ups == nil {
		ups = []busv1.Row{}
	}
	if dels == nil {
		dels = []busv1.RowKey{}
	}
	return &busv1.Delta{BaseRevision: base, BaseChecksum: "c" + string(rune('0'+base)), Upserts: ups, Deletes: dels}
}

func TestComposeKeepsTheLastChangeOfEachRow(t *testing.T) {
	a1, a2, b1, c1 := crow("pods", "a", "u-a", 1), crow("pods", "a", "u-a", 2), crow("pods", "b", "u-b", 1), crow("pods", "c", "u-c", 1)
	for _, tc := range []struct {
		name string
		ds   []*busv1.Delta
		want *busv1.Delta
	}{
		{"an upsert then a delete is a delete",
			[]*busv1.Delta{cdelta(1, []busv1.Row{a1}), cdelta(2, nil, a1.Key())},
			cdelta(1, nil, a1.Key())},
		{"a delete then an upsert is an upsert",
			[]*busv1.Delta{cdelta(1, nil, a1.Key()), cdelta(2, []busv1.Row{a2})},
			cdelta(1, []busv1.Row{a2})},
		{"the later upsert of a row wins",
			[]*busv1.Delta{cdelta(1, []busv1.Row{a1}), cdelta(2, []busv1.Row{a2})},
			cdelta(1, []busv1.Row{a2})},
		{"a delete and an upsert of one key in one delta is an upsert, deletes applying first",
			[]*busv1.Delta{cdelta(1, nil, b1.Key()), cdelta(2, []busv1.Row{b1}, b1.Key())},
			cdelta(1, []busv1.Row{b1})},
		{"an upsert, a delete and an upsert again is the last upsert",
			[]*busv1.Delta{cdelta(1, []busv1.Row{a1}), cdelta(2, nil, a1.Key()), cdelta(3, []busv1.Row{a2})},
			cdelta(1, []busv1.Row{a2})},
		{"changes of different rows are all kept, upserts in canonical order",
			[]*busv1.Delta{cdelta(1, []busv1.Row{c1}, ckey("pods", "u-z")), cdelta(2, []busv1.Row{a1, b1}, ckey("nodes", "u-y"))},
			cdelta(1, []busv1.Row{a1, b1, c1}, ckey("nodes", "u-y"), ckey("pods", "u-z"))},
		{"upserts follow the sort key, not the uid",
			[]*busv1.Delta{cdelta(1, []busv1.Row{crow("pods", "z-last", "0", 1)}), cdelta(2, []busv1.Row{crow("pods", "a-first", "9", 1)})},
			cdelta(1, []busv1.Row{crow("pods", "a-first", "9", 1), crow("pods", "z-last", "0", 1)})},
		{"one delta composes to itself",
			[]*busv1.Delta{cdelta(4, []busv1.Row{a1, c1}, b1.Key())},
			cdelta(4, []busv1.Row{a1, c1}, b1.Key())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, compose(tc.ds)); d != "" {
				t.Fatalf("composed delta (-want +got):\n%s", d)
			}
		})
	}
}

func TestChainJoinsOnlyConsecutiveRegularEvents(t *testing.T) {
	ev := func(rev uint64, mod func(*busv1.SnapshotEvent)) *job {
		e := &busv1.SnapshotEvent{Revision: rev, Checksum: "c" + string(rune('0'+rev)), Reason: busv1.ReasonChange,
			Delta: &busv1.Delta{BaseRevision: rev - 1, BaseChecksum: "c" + string(rune('0'+rev-1))}}
		if mod != nil {
			mod(e)
		}
		return &job{d: &delivery{ev: e}}
	}
	long := ev(2, nil)
	for range maxChainEvents - 1 {
		long.prev = append(long.prev, long.d)
	}
	for _, tc := range []struct {
		name         string
		older, newer *job
		want         bool
	}{
		{"an inline delta on the older event chains", ev(2, nil), ev(3, nil), true},
		{"an inline delta on another base does not", ev(2, nil), ev(4, nil), false},
		{"an inline delta on another checksum does not", ev(2, nil), ev(3, func(e *busv1.SnapshotEvent) { e.Delta.BaseChecksum = "x" }), false},
		{"a delta object chains until loaded", ev(2, nil), ev(3, func(e *busv1.SnapshotEvent) {
			e.Delta, e.DeltaRef = nil, &busv1.ObjectRef{Name: "delta.x"}
		}), true},
		{"an event without a delta does not", ev(2, nil), ev(3, func(e *busv1.SnapshotEvent) { e.Delta = nil }), false},
		{"a deletion does not", ev(2, nil), ev(3, func(e *busv1.SnapshotEvent) { e.Reason = busv1.ReasonDeleted }), false},
		{"a replay does not", ev(2, func(e *busv1.SnapshotEvent) { e.Replay = &busv1.Replay{} }), ev(3, nil), false},
		{"a chain at its cap does not", long, ev(3, nil), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := chain(tc.older, tc.newer)
			if (c != nil) != tc.want {
				t.Fatalf("chain returned %v, want chained %t", c, tc.want)
			}
			if c != nil && (c.d != tc.newer.d || c.first() != tc.older.first() || len(c.events()) != len(tc.older.events())+len(tc.newer.events())) {
				t.Fatalf("chain of %d events, newest %d, want the older's then the newer's events", len(c.events()), c.revision())
			}
		})
	}
}
