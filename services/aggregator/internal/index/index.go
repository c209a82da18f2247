package index

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

// Sum is the sha256 of a row's canonical JSON; two rows with equal sums are
// the same content.
type Sum [sha256.Size]byte

type entry struct {
	row busv1.Row
	sum Sum
}

// Index holds the current rows, grouped by Target namespace so that an
// inventory reads only its own namespace ("" holds every ClusterTarget's rows).
type Index struct {
	byNS map[string]map[busv1.RowKey]*entry
	n    int
}

// New returns an empty index.
func New() *Index { return &Index{byNS: map[string]map[busv1.RowKey]*entry{}} }

// Len returns the number of rows held.
func (x *Index) Len() int { return x.n }

// RowSum returns the content sum of row.
func RowSum(row *busv1.Row) (Sum, error) {
	b, err := json.Marshal(row)
	if err != nil {
		return Sum{}, fmt.Errorf("encode row %s/%s/%s: %w", row.TargetNamespace, row.TargetName, row.UID, err)
	}
	return sha256.Sum256(b), nil
}

// Put stores row under key and reports whether the content changed. A row
// whose own identity disagrees with key is stored under key all the same:
// the bucket key is the collector's statement of identity.
func (x *Index) Put(key busv1.RowKey, row busv1.Row) (bool, error) {
	sum, err := RowSum(&row)
	if err != nil {
		return false, err
	}
	ns := namespaceOf(key)
	m := x.byNS[ns]
	if m == nil {
		m = map[busv1.RowKey]*entry{}
		x.byNS[ns] = m
	}
	if old, ok := m[key]; ok {
		if old.sum == sum {
			return false, nil
		}
		old.row, old.sum = row, sum
		return true, nil
	}
	m[key] = &entry{row: row, sum: sum}
	x.n++
	return true, nil
}

// Delete removes the row of key and reports whether there was one.
func (x *Index) Delete(key busv1.RowKey) bool {
	ns := namespaceOf(key)
	m := x.byNS[ns]
	if _, ok := m[key]; !ok {
		return false
	}
	delete(m, key)
	x.n--
	if len(m) == 0 {
		delete(x.byNS, ns)
	}
	return true
}

func namespaceOf(key busv1.RowKey) string {
	if key.ClusterTarget {
		return ""
	}
	return key.TargetNamespace
}

// Affects reports whether a change of the row under key can change inv's
// snapshot, whatever the row's content.
func Affects(inv *busv1.InventoryConfig, key busv1.RowKey) bool {
	if inv.Kind == busv1.KindClusterInventory {
		if !key.ClusterTarget {
			return false
		}
		for _, t := range inv.TargetRefs {
			if t == key.TargetName {
				return true
			}
		}
		return false
	}
	return !key.ClusterTarget && key.TargetNamespace != "" && key.TargetNamespace == inv.Namespace
}

// Snapshot builds inv's canonical snapshot from the rows held: members only
// (snapshot.Member), in canonical order, deduped, with checksum and, for a
// cluster inventory, per-namespace shards.
func (x *Index) Snapshot(inv *busv1.InventoryConfig) (*Snapshot, error) {
	ns := inv.Namespace
	if inv.Kind == busv1.KindClusterInventory {
		ns = ""
	}
	var members []*entry
	for _, e := range x.byNS[ns] {
		if snapshot.Member(inv, &e.row) {
			members = append(members, e)
		}
	}
	return build(inv, members)
}
