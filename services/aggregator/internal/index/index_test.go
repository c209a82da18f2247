package index

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

func row(tns, target, ns, name, uid string, attrs map[string]any) busv1.Row {
	return busv1.Row{TargetNamespace: tns, TargetName: target, Namespace: ns, Name: name, UID: uid,
		Group: "apps", Version: "v1", Kind: "Deployment", Attributes: attrs}
}

var (
	nsInv = &busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: "team-a", Name: "inv"}
	keep  = &busv1.InventoryConfig{Kind: busv1.KindClusterInventory, Name: "fleet",
		TargetRefs: []string{"deploys-a", "deploys-b"}, Dedupe: busv1.DedupeKeepAll}
	byUID = &busv1.InventoryConfig{Kind: busv1.KindClusterInventory, Name: "fleet-uid",
		TargetRefs: []string{"deploys-a", "deploys-b"}, Dedupe: busv1.DedupeByResourceUID}
)

func fixture() []busv1.Row {
	return []busv1.Row{
		row("team-a", "web", "team-a", "api", "u1", map[string]any{"image": "api:1", "note": "<&>", "n": map[string]any{"b": 1, "a": []any{2.5}}}),
		row("team-a", "web", "team-a", "front", "u2", map[string]any{"image": "front:2"}),
		row("team-a", "db", "team-a", "pg", "u3", nil),
		row("team-b", "web", "team-b", "api", "u4", nil),
		row("", "deploys-a", "prod", "api", "u5", nil),
		row("", "deploys-b", "prod", "api", "u5", nil),
		row("", "deploys-b", "dev", "web", "u6", nil),
		row("", "other", "prod", "x", "u7", nil),
	}
}

func load(t *testing.T, rows []busv1.Row) *Index {
	t.Helper()
	x := New()
	for _, r := range rows {
		if _, err := x.Put(r.Key(), r); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

func snap(t *testing.T, x *Index, inv *busv1.InventoryConfig) *Snapshot {
	t.Helper()
	s, err := x.Snapshot(inv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSnapshotDoesNotDependOnArrivalOrder(t *testing.T) {
	for _, inv := range []*busv1.InventoryConfig{nsInv, keep, byUID} {
		want := snap(t, load(t, fixture()), inv)
		if sum, err := snapshot.Checksum(want.Items); err != nil || sum != want.Checksum {
			t.Fatalf("%s: checksum %s, snapshot.Checksum gives %s (%v)", inv.Name, want.Checksum, sum, err)
		}
		for i := range 20 {
			rows := fixture()
			rand.Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
			if diff := cmp.Diff(want, snap(t, load(t, rows), inv)); diff != "" {
				t.Fatalf("%s shuffle %d (-want +got):\n%s", inv.Name, i, diff)
			}
		}
	}
}

func TestMembershipAndDedupe(t *testing.T) {
	uids := func(s *Snapshot) []string {
		var out []string
		for _, r := range s.Items {
			out = append(out, r.TargetName+"/"+r.UID)
		}
		return out
	}
	x := load(t, fixture())
	tests := []struct {
		name string
		inv  *busv1.InventoryConfig
		want []string
	}{
		{"a namespaced inventory holds only its namespace's Target rows", nsInv, []string{"db/u3", "web/u1", "web/u2"}},
		{"a namespaced inventory in the empty namespace holds no ClusterTarget rows",
			&busv1.InventoryConfig{Kind: busv1.KindInventory, Name: "x"}, nil},
		{"keepAll keeps one row per ClusterTarget and object", keep, []string{"deploys-a/u5", "deploys-b/u6", "deploys-b/u5"}},
		{"byResourceUID keeps the first ClusterTarget's row per uid", byUID, []string{"deploys-a/u5", "deploys-b/u6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, uids(snap(t, x, tt.inv))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestClusterInventoryShards(t *testing.T) {
	s := snap(t, load(t, fixture()), keep)
	if len(s.Shards) != 2 || s.Shards[0].Namespace != "dev" || s.Shards[0].ItemCount != 1 ||
		s.Shards[1].Namespace != "prod" || s.Shards[1].ItemCount != 2 {
		t.Fatalf("shards = %+v", s.Shards)
	}
	if snap(t, load(t, fixture()), nsInv).Shards != nil {
		t.Error("a namespaced inventory has shards")
	}
}

// Applying each delta to the previous snapshot reproduces the next one
// exactly, over random puts, changes and deletes.
func TestDeltaReproducesTheNextSnapshot(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := New()
	inv := &busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: "ns", Name: "inv"}
	prev := snap(t, x, inv)
	for step := range 300 {
		for range 1 + rng.IntN(5) {
			r := row("ns", fmt.Sprintf("t%d", rng.IntN(3)), "ns", fmt.Sprintf("o%d", rng.IntN(20)),
				fmt.Sprintf("u%d", rng.IntN(20)), map[string]any{"v": float64(rng.IntN(3))})
			if rng.IntN(3) == 0 {
				x.Delete(r.Key())
			} else if _, err := x.Put(r.Key(), r); err != nil {
				t.Fatal(err)
			}
		}
		next := snap(t, x, inv)
		d := Delta(prev, uint64(step), next)
		if d.BaseChecksum != prev.Checksum {
			t.Fatalf("step %d: base checksum %s, want %s", step, d.BaseChecksum, prev.Checksum)
		}
		got := Apply(prev.Items, d)
		if diff := cmp.Diff(next.Items, got, cmp.Transformer("nil", func(r []busv1.Row) []busv1.Row {
			if r == nil {
				return []busv1.Row{}
			}
			return r
		})); diff != "" {
			t.Fatalf("step %d: delta applied to the previous snapshot (-want +got):\n%s", step, diff)
		}
		prev = next
	}
}
