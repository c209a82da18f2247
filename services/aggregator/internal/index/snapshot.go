package index

import (
	"cmp"
	"fmt"
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

// Snapshot is one inventory's canonical content: what an envelope carries
// apart from revision and generation.
type Snapshot struct {
	// Items are the rows in canonical order, deduped.
	Items []busv1.Row
	// Sums are the content sums of Items, index for index.
	Sums []Sum
	// Checksum is snapshot.Checksum of Items.
	Checksum string
	// Shards are the per-source-namespace item counts and checksums of a
	// cluster inventory, sorted by namespace; nil for namespaced ones.
	Shards []Shard
}

// Shard is one source namespace's part of a cluster inventory.
type Shard struct {
	// Namespace is the source namespace ("" for cluster-scoped objects).
	Namespace string
	// ItemCount is the number of rows from that namespace.
	ItemCount int
	// Checksum is snapshot.Checksum of those rows, in canonical order.
	Checksum string
}

func build(inv *busv1.InventoryConfig, members []*entry) (*Snapshot, error) {
	slices.SortFunc(members, func(a, b *entry) int { return busv1.CompareRows(a.row, b.row) })
	if inv.Kind == busv1.KindClusterInventory && inv.Dedupe == busv1.DedupeByResourceUID {
		seen := make(map[string]struct{}, len(members))
		kept := members[:0]
		for _, e := range members {
			if _, dup := seen[e.row.UID]; !dup {
				seen[e.row.UID] = struct{}{}
				kept = append(kept, e)
			}
		}
		members = kept
	}
	s := &Snapshot{Items: make([]busv1.Row, len(members)), Sums: make([]Sum, len(members))}
	for i, e := range members {
		s.Items[i], s.Sums[i] = e.row, e.sum
	}
	sum, err := snapshot.Checksum(s.Items)
	if err != nil {
		return nil, fmt.Errorf("checksum inventory %s/%s: %w", inv.Namespace, inv.Name, err)
	}
	s.Checksum = sum
	if inv.Kind == busv1.KindClusterInventory {
		if s.Shards, err = shards(s.Items); err != nil {
			return nil, fmt.Errorf("checksum shards of cluster inventory %s: %w", inv.Name, err)
		}
	}
	return s, nil
}

// FromItems rebuilds a Snapshot from a published envelope's items (already in
// canonical order), the base of the next delta after a restart.
func FromItems(items []busv1.Row) (*Snapshot, error) {
	s := &Snapshot{Items: items, Sums: make([]Sum, len(items))}
	for i := range items {
		sum, err := RowSum(&items[i])
		if err != nil {
			return nil, err
		}
		s.Sums[i] = sum
	}
	sum, err := snapshot.Checksum(items)
	if err != nil {
		return nil, fmt.Errorf("checksum published items: %w", err)
	}
	s.Checksum = sum
	return s, nil
}

func shards(items []busv1.Row) ([]Shard, error) {
	byNS := map[string][]busv1.Row{}
	for _, r := range items {
		byNS[r.Namespace] = append(byNS[r.Namespace], r)
	}
	out := make([]Shard, 0, len(byNS))
	for ns, rows := range byNS {
		sum, err := snapshot.Checksum(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, Shard{Namespace: ns, ItemCount: len(rows), Checksum: sum})
	}
	slices.SortFunc(out, func(a, b Shard) int { return cmp.Compare(a.Namespace, b.Namespace) })
	return out, nil
}

func sortRows(rows []busv1.Row) { snapshot.Sort(rows) }
