package index

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

func changeKeys(v *View) []string {
	ups, dels := v.Changes()
	var out []string
	for _, r := range ups {
		out = append(out, "+"+r.Sort+"="+string(r.Raw))
	}
	for _, r := range dels {
		out = append(out, "-"+r.Sort)
	}
	slices.Sort(out)
	return out
}

// TestARestartedViewFindsItsDeltaFromThePublishedChunks compares the delta a
// restarted view derives from the published manifest (reading only the
// chunks it does not hold) with the one derived from every published row.
func TestARestartedViewFindsItsDeltaFromThePublishedChunks(t *testing.T) {
	for _, cfg := range []*busv1.InventoryConfig{nsInv, byUID} {
		t.Run(cfg.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			rows := NewRows()
			tns := "ns"
			if cfg.Kind == busv1.KindClusterInventory {
				tns = ""
			}
			put := func(i, v int) {
				r := mkRow(t, tns, fmt.Sprintf("t%d", i%3), "prod", fmt.Sprintf("o%04d", i), fmt.Sprintf("u%d", i%1500), v)
				if old, changed := rows.Put(r); changed {
					_ = old
				}
			}
			for i := range 3000 {
				put(i, 0)
			}
			for round := range 20 {
				v := NewView(cfg, rows)
				published, _ := v.Chunks()
				stored := map[string][]*Row{}
				var all []*Row
				v.chunks.Ascend(func(c *chunk) bool {
					v.eachIn(c, func(r *Row) { stored[c.c.Digest] = append(stored[c.c.Digest], r) })
					all = append(all, stored[c.c.Digest]...)
					return true
				})
				n := rng.IntN(30)
				for range n {
					i := rng.IntN(3200)
					if rng.IntN(5) == 0 {
						rows.Delete(mkRow(t, tns, fmt.Sprintf("t%d", i%3), "prod", fmt.Sprintf("o%04d", i), fmt.Sprintf("u%d", i%1500), 0).Key)
					} else {
						put(i, round+1)
					}
				}
				want, got := NewView(cfg, rows), NewView(cfg, rows)
				want.SetBase(all)
				loads := 0
				if err := got.SetBaseChunks(published, func(c busv1.Chunk) ([]*Row, error) {
					loads++
					return stored[c.Digest], nil
				}); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(changeKeys(want), changeKeys(got)); diff != "" {
					t.Fatalf("round %d: delta from chunks (-all rows +chunks):\n%s", round, diff)
				}
				if loads > 2*n {
					t.Fatalf("round %d: %d changes read %d of %d published chunks back", round, n, loads, len(published))
				}
			}
		})
	}
}
