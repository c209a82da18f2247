// Package index is the aggregator's in-memory view of the rows bucket and the
// snapshots built from it: rows by Target namespace, the canonical snapshot of
// one inventory (membership, order, dedupe, checksum, per-namespace shards)
// and the delta between two snapshots.
//
// index does no I/O and is not safe for concurrent use: the aggregator's
// engine owns it from one goroutine. Reading the bus and publishing are the
// engine's and the publisher's.
package index
