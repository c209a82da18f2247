package exporter

import (
	"cmp"
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// maxComposedRows caps the rows (upserts plus deletes) of the deltas one
// write composes; past it, or past half the snapshot's rows, a full write
// costs about as much and the newest snapshot is written whole.
const maxComposedRows = 50_000

// composeLimit is the most rows a composition for a snapshot of itemCount
// rows may read.
func composeLimit(itemCount int) int {
	return min(maxComposedRows, itemCount/2)
}

// compose returns the one delta equivalent to applying ds in order, each on
// the snapshot the one before it produced: its base is ds[0]'s, and for each
// row key the last change wins (an upsert then a delete is a delete, a
// delete then an upsert is an upsert). Within one delta deletes apply
// before upserts, as everywhere. Upserts are in canonical order
// (busv1.CompareRows); deletes in (targetNamespace, targetName, uid) order,
// the canonical order as far as a key carries it.
func compose(ds []*busv1.Delta) *busv1.Delta {
	last := map[busv1.RowKey]*busv1.Row{} // nil: deleted
	for _, d := range ds {
		for _, k := range d.Deletes {
			last[k] = nil
		}
		for i := range d.Upserts {
			last[d.Upserts[i].Key()] = &d.Upserts[i]
		}
	}
	out := &busv1.Delta{BaseRevision: ds[0].BaseRevision, BaseChecksum: ds[0].BaseChecksum,
		Upserts: []busv1.Row{}, Deletes: []busv1.RowKey{}}
	for k, r := range last {
		if r == nil {
			out.Deletes = append(out.Deletes, k)
		} else {
			out.Upserts = append(out.Upserts, *r)
		}
	}
	slices.SortFunc(out.Upserts, busv1.CompareRows)
	slices.SortFunc(out.Deletes, compareKeys)
	return out
}

// compareKeys orders row keys by targetNamespace, targetName and uid.
func compareKeys(a, b busv1.RowKey) int {
	return cmp.Or(cmp.Compare(a.TargetNamespace, b.TargetNamespace), cmp.Compare(a.TargetName, b.TargetName),
		cmp.Compare(a.UID, b.UID))
}
