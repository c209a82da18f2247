package postgres

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

func TestKeyOrderYieldsThePrimaryKeyOrderAndLeavesTheSnapshotAlone(t *testing.T) {
	random := rand.New(rand.NewPCG(1, 2))
	gen := func(n int, uid func(i int) string) []busv1.Row {
		rows := make([]busv1.Row, n)
		for i := range rows {
			rows[i] = busv1.Row{TargetNamespace: fmt.Sprintf("ns-%d", i%3), TargetName: fmt.Sprintf("t-%d", i%2),
				Namespace: "a", Name: fmt.Sprintf("n-%d", i), UID: uid(i)}
		}
		return rows
	}
	randomUID := func(int) string { return fmt.Sprintf("%08x", random.Uint32()) }
	for _, c := range []struct {
		name string
		rows []busv1.Row
	}{
		{"no rows", nil},
		{"one row", gen(1, randomUID)},
		{"rows in canonical order, uids not", []busv1.Row{
			{TargetNamespace: "a", TargetName: "web", Namespace: "a", Name: "x", UID: "u3"},
			{TargetNamespace: "a", TargetName: "web", Namespace: "a", Name: "y", UID: "u1"},
			{TargetNamespace: "a", TargetName: "web", Namespace: "b", Name: "a", UID: "u2"},
			{TargetNamespace: "b", TargetName: "db", Namespace: "b", Name: "a", UID: "u0"},
		}},
		{"exactly one insertion sort", gen(insertionCutoff, randomUID)},
		{"random uids", gen(5000, randomUID)},
		{"uids already in order", gen(3000, func(i int) string { return fmt.Sprintf("%08d", i) })},
		{"uids in reverse order", gen(3000, func(i int) string { return fmt.Sprintf("%08d", 1e6-i) })},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := slices.Clone(c.rows)
			want := slices.Clone(c.rows)
			slices.SortFunc(want, func(a, b busv1.Row) int { return compareKeys(&a, &b) })
			o := newKeyOrder(c.rows)
			var got []busv1.Row
			for r := o.pop(); r != nil; r = o.pop() {
				got = append(got, *r)
			}
			if !slices.EqualFunc(got, want, func(a, b busv1.Row) bool { return a.UID == b.UID && a.Name == b.Name }) {
				t.Errorf("keyOrder yielded %d rows out of the primary key's order", len(got))
			}
			if !slices.EqualFunc(c.rows, before, func(a, b busv1.Row) bool { return a.UID == b.UID }) {
				t.Error("keyOrder reordered the snapshot it was given")
			}
		})
	}
}

func TestARepeatedKeyStopsTheCopyWithAPermanentErrorNamingIt(t *testing.T) {
	rows := []busv1.Row{
		{TargetNamespace: "a", TargetName: "web", Namespace: "a", Name: "x", UID: "u1"},
		{TargetNamespace: "a", TargetName: "web", Namespace: "a", Name: "y", UID: "u2"},
		{TargetNamespace: "a", TargetName: "web", Namespace: "b", Name: "z", UID: "u1"},
	}
	src := newRowSource(rows).inKeyOrder()
	n := 0
	for src.Next() {
		n++
	}
	err := src.Err()
	if err == nil || !sink.IsPermanent(err) || !strings.Contains(err.Error(), "uid u1") {
		t.Fatalf("after %d rows the copy ended with %v, want a permanent error naming uid u1", n, err)
	}
}
