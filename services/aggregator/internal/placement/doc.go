// Package placement says which aggregator shard an inventory and its
// objects belong to: the shard of their owner (bus.ObjectOwner), so that
// every namespaced inventory of a namespace, which reads only the rows of
// that namespace's Targets, is on one shard with them, and a cluster
// inventory, which reads the rows of the ClusterTargets, is placed by its
// own name. It does not hold shards (pkg/shard does) or run them (the
// aggregator's Run does).
package placement
