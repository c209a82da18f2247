package placement

import (
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/shard"
)

// Of returns the shard, of n, of owner o's inventories and objects: the
// shard of its namespace, or of a cluster inventory's name.
func Of(o bus.ObjectOwner, n int) int {
	return shard.Of(o.Key(), n)
}

// OfInventory returns the shard, of n, of inventory inv.
func OfInventory(inv busv1.NamespacedName, n int) int {
	return Of(bus.OwnerOf(inv), n)
}
