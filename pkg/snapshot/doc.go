// Package snapshot builds canonical snapshots: which rows belong to an
// inventory (namespaced inventories take the rows of every Target in their
// namespace, cluster inventories the rows of their ClusterTargets, with
// dedupe), the canonical row order, the checksum and the envelope of
// docs/contract.md.
//
// The aggregator and `kollect collect` share it, so a snapshot's checksum is
// the same whichever built it. snapshot does no I/O: it neither reads rows
// from the bus nor publishes.
package snapshot
