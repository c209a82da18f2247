package index

import (
	"fmt"
	"testing"
)

// TestAChangeCostsTheSameAtAnyInventorySize guards the incremental design:
// the row bytes a one-row change re-hashes, and the rows its delta names, do
// not grow with the inventory.
func TestAChangeCostsTheSameAtAnyInventorySize(t *testing.T) {
	perChange := map[int]float64{}
	for _, n := range []int{2_000, 50_000} {
		rows := NewRows()
		for i := range n {
			rows.Put(mkRow(t, "ns", "web", "ns", fmt.Sprintf("app-%06d", i), fmt.Sprintf("u%d", i), 0))
		}
		v := NewView(nsInv, rows)
		v.Published()
		before := v.Hashed
		const changes = 200
		for c := range changes {
			i := (c * 7919) % n
			next := mkRow(t, "ns", "web", "ns", fmt.Sprintf("app-%06d", i), fmt.Sprintf("u%d", i), c+1)
			old, _ := rows.Put(next)
			v.Apply(old, next)
			v.Checksum()
			ups, dels := v.Changes()
			if len(ups) != 1 || len(dels) != 0 || ups[0].Key != next.Key {
				t.Fatalf("%d rows, change %d: delta of %d upserts and %d deletes", n, c, len(ups), len(dels))
			}
			v.Published()
		}
		perChange[n] = float64(v.Hashed-before) / changes
	}
	// A chunk holds 256 rows on average whatever the size; allow for the
	// spread of chunk sizes between the two inventories.
	t.Logf("row bytes hashed per change: %v", perChange)
	if small, big := perChange[2_000], perChange[50_000]; big > 3*small {
		t.Errorf("bytes hashed per change: %.0f at 2k rows, %.0f at 50k rows: the cost grows with the inventory", small, big)
	}
}
