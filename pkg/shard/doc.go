// Package shard spreads a fixed number of shards of one role (the
// collector's Targets, the aggregator's inventories) over the role's live
// replicas, with every replica active.
//
// Each replica is a member: it keeps a key "<role>.members.<identity>" in
// the bus's leases bucket alive, and holds a lease "<role>.shards.<n>.<i>"
// for every shard i of n it works on, renewed like the aggregator's leader
// lease (compare-and-set on the key's revision, valid for a TTL). A replica
// holds between floor(n/m) and ceil(n/m) of the n shards when m replicas
// are live: it takes free shards up to its share, gives back those above
// it, and never takes a shard beyond the smaller share while another member
// has less. Which free shards a replica prefers is a rendezvous hash of
// (identity, shard), so a replica joining or leaving moves only its share.
//
// A shard's work stops before its lease is given back, and a lease is
// taken only when it is absent or expired, so two replicas never work on
// one shard at once (as with any lease, provided a replica that cannot renew
// stops within the TTL: work's context is cancelled the moment a renewal
// fails or is refused).
//
// Every member records the shard count it uses. A replica that sees a live
// member with another count takes no shard until that member is gone, so a
// rolling update that changes the count never runs both partitions at once.
package shard
