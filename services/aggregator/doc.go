// Package aggregator is the Kollect service that turns the collector's rows
// into one canonical snapshot per inventory and publishes it on the bus: on a
// material change after a short settle window, per binding at its effective
// interval when unchanged, and once more on deletion when the inventory's
// deletionPolicy asks for it. The inventories are spread over shards (by
// namespace, a cluster inventory by name; package placement), and every
// replica is active on its share of them (pkg/shard: a lease per shard in a
// NATS KV bucket); a replica that takes a shard rebuilds its inventories
// from the bus and continues each one's revision sequence from its snapshot
// subject.
//
// It never talks to the Kubernetes API and links no sink SDK.
package aggregator
