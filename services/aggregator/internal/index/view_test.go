package index

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

func mkRow(t testing.TB, tns, target, ns, name, uid string, v any) *Row {
	t.Helper()
	r := busv1.Row{TargetNamespace: tns, TargetName: target, Namespace: ns, Name: name, UID: uid,
		Group: "apps", Version: "v1", Kind: "Deployment", Attributes: map[string]any{"v": v, "note": "<&>"}}
	raw, err := snapshot.Canonical(&r)
	if err != nil {
		t.Fatal(err)
	}
	row, err := FromRaw(raw)
	if err != nil {
		t.Fatal(err)
	}
	return row
}

var (
	nsInv  = &busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: "ns", Name: "inv"}
	keep   = &busv1.InventoryConfig{Kind: busv1.KindClusterInventory, Name: "fleet", TargetRefs: []string{"t0", "t1"}}
	byUID  = &busv1.InventoryConfig{Kind: busv1.KindClusterInventory, Name: "fleet-uid", TargetRefs: []string{"t0", "t1", "t2"}, Dedupe: busv1.DedupeByResourceUID}
	onlyNS = &busv1.InventoryConfig{Kind: busv1.KindClusterInventory, Name: "prod", TargetRefs: []string{"t0", "t1"}, Namespaces: []string{"prod"}}
)

// expected builds an inventory's chunks and checksum from scratch, the way
// the contract defines them: members, canonical order, dedupe, chunks.
func expected(t testing.TB, rows *Rows, cfg *busv1.InventoryConfig) (string, []busv1.Chunk) {
	t.Helper()
	var members []*Row
	rows.each(cfg, func(r *Row) {
		if member(cfg, r) {
			members = append(members, r)
		}
	})
	slices.SortFunc(members, func(a, b *Row) int { return cmpStr(a.Sort, b.Sort) })
	if dedupes(cfg) {
		seen := map[string]bool{}
		members = slices.DeleteFunc(members, func(r *Row) bool {
			dup := seen[r.UID]
			seen[r.UID] = true
			return dup
		})
	}
	var c snapshot.Chunker
	for _, r := range members {
		if err := c.Add(r.Sort, r.Raw); err != nil {
			t.Fatal(err)
		}
	}
	chunks, sum, err := c.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return sum, chunks
}

func keysOf(rows []*Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Sort
	}
	return out
}

func TestViewsFollowEveryChangeAsARebuildWould(t *testing.T) {
	for _, cfg := range []*busv1.InventoryConfig{nsInv, keep, byUID, onlyNS} {
		t.Run(cfg.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(cfg.Name))))
			rows := NewRows()
			v := NewView(cfg, rows)
			published := map[busv1.RowKey][]byte{}
			for step := range 400 {
				for range 1 + rng.IntN(40) {
					tns, target := "ns", fmt.Sprintf("t%d", rng.IntN(3))
					if cfg.Kind == busv1.KindClusterInventory {
						tns = ""
					}
					i := rng.IntN(600)
					r := mkRow(t, tns, target, []string{"prod", "dev"}[i%2], fmt.Sprintf("o%03d", i), fmt.Sprintf("u%d", i), rng.IntN(3))
					var old, next *Row
					if rng.IntN(4) == 0 {
						old = rows.Delete(r.Key)
					} else if o, changed := rows.Put(r); changed {
						old, next = o, r
					} else {
						continue
					}
					if Affects(cfg, r.Key) {
						v.Apply(old, next)
					}
				}
				sum, chunks := expected(t, rows, cfg)
				gotChunks, _ := v.Chunks()
				if !slices.Equal(chunks, gotChunks) {
					t.Fatalf("step %d: chunks differ from a rebuild (-rebuild +view):\n%s", step, cmp.Diff(chunks, gotChunks))
				}
				if got := v.Checksum(); got != sum {
					t.Fatalf("step %d: checksum %s, a rebuild gives %s", step, got, sum)
				}
				ups, dels := v.Changes()
				for _, d := range dels {
					if _, ok := published[d.Key]; !ok {
						t.Fatalf("step %d: delete of %s, which was not published", step, d.Sort)
					}
					delete(published, d.Key)
				}
				for _, u := range ups {
					published[u.Key] = u.Raw
				}
				now := map[busv1.RowKey][]byte{}
				v.Each(func(r *Row) bool { now[r.Key] = r.Raw; return true })
				if !maps.EqualFunc(now, published, bytes.Equal) {
					t.Fatalf("step %d: the published rows plus the changes are not the view (-view +applied):\n%s", step, cmp.Diff(now, published))
				}
				if !slices.IsSortedFunc(ups, func(a, b *Row) int { return cmpStr(a.Sort, b.Sort) }) {
					t.Fatalf("step %d: upserts out of order: %v", step, keysOf(ups))
				}
				v.Published()
			}
		})
	}
}
