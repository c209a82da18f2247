package postgres

import (
	"slices"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

func TestKeyOrderSortsByThePrimaryKeyAndLeavesTheSnapshotAlone(t *testing.T) {
	items := []busv1.Row{
		{TargetNamespace: "a", TargetName: "web", Namespace: "a", Name: "x", UID: "u3"},
		{TargetNamespace: "a", TargetName: "web", Namespace: "a", Name: "y", UID: "u1"},
		{TargetNamespace: "a", TargetName: "web", Namespace: "b", Name: "a", UID: "u2"},
		{TargetNamespace: "b", TargetName: "db", Namespace: "b", Name: "a", UID: "u0"},
	}
	before := slices.Clone(items)
	var got []string
	for _, r := range keyOrder(items) {
		got = append(got, r.TargetNamespace+"/"+r.TargetName+"/"+r.UID)
	}
	if want := []string{"a/web/u1", "a/web/u2", "a/web/u3", "b/db/u0"}; !slices.Equal(got, want) {
		t.Errorf("keyOrder = %v, want %v", got, want)
	}
	if !slices.EqualFunc(items, before, func(a, b busv1.Row) bool { return a.UID == b.UID }) {
		t.Error("keyOrder reordered the snapshot it was given")
	}
}
