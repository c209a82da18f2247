// Package index holds the aggregator's rows and, per inventory, an
// incrementally maintained view of its snapshot: the member rows in canonical
// order as canonical JSON bytes (never decoded), their chunks with digests,
// the version 2 checksum, per-namespace shards, and the changes since the
// last publish. A change costs O(log N) plus re-hashing the one or two chunks
// that hold it; nothing is sorted, decoded or marshalled per settle.
package index
