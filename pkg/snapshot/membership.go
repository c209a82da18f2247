package snapshot

import (
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Member reports whether row belongs to the inventory inv: for a namespaced
// inventory, a row of a namespaced Target in the same namespace; for a
// cluster inventory, a row of one of its ClusterTargets whose source
// namespace it selects. Rows of cluster kinds never reach namespaced
// inventories and the other way round.
func Member(inv *busv1.InventoryConfig, row *busv1.Row) bool {
	if inv.Kind != busv1.KindClusterInventory {
		return row.TargetNamespace != "" && row.TargetNamespace == inv.Namespace
	}
	if row.TargetNamespace != "" || !slices.Contains(inv.TargetRefs, row.TargetName) {
		return false
	}
	return inv.Namespaces == nil || slices.Contains(inv.Namespaces, row.Namespace)
}

// Dedupe applies a cluster inventory's dedupe mode to rows sorted in
// canonical order. byResourceUID keeps, per object uid, the row of the first
// ClusterTarget in name order; keepAll (and empty) keeps every row. It
// returns rows filtered in place.
func Dedupe(mode busv1.Dedupe, rows []busv1.Row) []busv1.Row {
	if mode != busv1.DedupeByResourceUID {
		return rows
	}
	seen := make(map[string]struct{}, len(rows))
	out := rows[:0]
	for _, r := range rows {
		if _, dup := seen[r.UID]; dup {
			continue
		}
		seen[r.UID] = struct{}{}
		out = append(out, r)
	}
	return out
}
