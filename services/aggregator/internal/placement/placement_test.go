package placement

import (
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/shard"
)

func TestPlacement(t *testing.T) {
	const n = 8
	t.Run("every inventory of a namespace is on the namespace's shard", func(t *testing.T) {
		for _, name := range []string{"a", "b", "web"} {
			if got, want := OfInventory(busv1.NamespacedName{Namespace: "team-a", Name: name}, n), shard.Of("team-a", n); got != want {
				t.Errorf("team-a/%s on shard %d, want %d", name, got, want)
			}
		}
	})
	t.Run("cluster inventories spread by name", func(t *testing.T) {
		seen := map[int]bool{}
		for _, name := range []string{"fleet", "prod", "stage", "dev", "edge", "core", "infra", "apps"} {
			seen[OfInventory(busv1.NamespacedName{Name: name}, n)] = true
		}
		if len(seen) < 2 {
			t.Errorf("8 cluster inventories on %d shard(s)", len(seen))
		}
	})
	t.Run("an inventory's objects are on its shard", func(t *testing.T) {
		inv := busv1.NamespacedName{Name: "fleet"}
		if Of(bus.OwnerOf(inv), n) != OfInventory(inv, n) {
			t.Error("the objects of cluster inventory fleet are on another shard")
		}
	})
}
