package index

import (
	"crypto/sha256"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wantShards sums, per source namespace, the members' sha256 as 256-bit
// integers modulo 2^256 (math/big, independent of the view's limbs).
func wantShards(v *View) []Shard {
	count := map[string]int{}
	sum := map[string]*big.Int{}
	mod := new(big.Int).Lsh(big.NewInt(1), 256)
	v.Each(func(r *Row) bool {
		h := sha256.Sum256(r.Raw)
		if sum[r.Namespace] == nil {
			sum[r.Namespace] = new(big.Int)
		}
		sum[r.Namespace].Add(sum[r.Namespace], new(big.Int).SetBytes(h[:]))
		sum[r.Namespace].Mod(sum[r.Namespace], mod)
		count[r.Namespace]++
		return true
	})
	out := []Shard{}
	for _, ns := range []string{"dev", "prod"} {
		if count[ns] > 0 {
			out = append(out, Shard{Namespace: ns, ItemCount: count[ns], Checksum: fmt.Sprintf("%064x", sum[ns])})
		}
	}
	return out
}

func TestClusterInventoryShardsFollowEveryChange(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rows := NewRows()
	v := NewView(keep, rows)
	for step := range 300 {
		i := rng.IntN(200)
		r := mkRow(t, "", fmt.Sprintf("t%d", i%2), []string{"prod", "dev"}[i%2], fmt.Sprintf("o%03d", i), fmt.Sprintf("u%d", i), rng.IntN(4))
		var old, next *Row
		if rng.IntN(3) == 0 {
			old = rows.Delete(r.Key)
		} else if o, changed := rows.Put(r); changed {
			old, next = o, r
		}
		if old != nil || next != nil {
			v.Apply(old, next)
		}
		if diff := cmp.Diff(wantShards(v), v.Shards()); diff != "" {
			t.Fatalf("step %d: shards (-want +got):\n%s", step, diff)
		}
	}
	if NewView(nsInv, rows).Shards() != nil {
		t.Error("a namespaced inventory has shards")
	}
}
