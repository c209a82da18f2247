package index

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

// Snapshot is one inventory's canonical content: what an envelope carries
// apart from revision and generation.
type Snapshot struct {
	// Items are the rows in canonical order, deduped.
	Items []busv1.Row
	// Raw are the canonical JSON encodings of Items, index for index.
	Raw [][]byte
	// Checksum is snapshot.Checksum of Items, computed from Raw.
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
	s := &Snapshot{Items: make([]busv1.Row, len(members)), Raw: make([][]byte, len(members))}
	for i, e := range members {
		s.Items[i], s.Raw[i] = e.row, e.raw
	}
	s.Checksum = checksum(s.Raw)
	if inv.Kind == busv1.KindClusterInventory {
		s.Shards = shards(s)
	}
	return s, nil
}

// checksum is snapshot.Checksum over rows already encoded canonically.
func checksum(raw [][]byte) string {
	h := sha256.New()
	h.Write([]byte{'['})
	for i, b := range raw {
		if i > 0 {
			h.Write([]byte{','})
		}
		h.Write(b)
	}
	h.Write([]byte{']'})
	return hex.EncodeToString(h.Sum(nil))
}

// FromItems rebuilds a Snapshot from a published envelope's items (already in
// canonical order), the base of the next delta after a restart.
func FromItems(items []busv1.Row) (*Snapshot, error) {
	s := &Snapshot{Items: items, Raw: make([][]byte, len(items))}
	for i := range items {
		raw, err := Canonical(&items[i])
		if err != nil {
			return nil, err
		}
		s.Raw[i] = raw
	}
	s.Checksum = checksum(s.Raw)
	return s, nil
}

func shards(s *Snapshot) []Shard {
	byNS := map[string][][]byte{}
	for i, r := range s.Items {
		byNS[r.Namespace] = append(byNS[r.Namespace], s.Raw[i])
	}
	out := make([]Shard, 0, len(byNS))
	for ns, raw := range byNS {
		out = append(out, Shard{Namespace: ns, ItemCount: len(raw), Checksum: checksum(raw)})
	}
	slices.SortFunc(out, func(a, b Shard) int { return cmp.Compare(a.Namespace, b.Namespace) })
	return out
}

func sortRows(rows []busv1.Row) { snapshot.Sort(rows) }
