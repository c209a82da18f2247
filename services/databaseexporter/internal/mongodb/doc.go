// Package mongodb is the mongodb backend of the database exporter: it keeps a
// MongoDB collection equal to the latest snapshot of each bound inventory,
// one document per row (CONTRACT.md, MongoDB projection).
//
// It owns the document layout (identity _id, the row under row, revision,
// checksum, exportedAt and top-level copies of the cluster and inventory),
// the state collection <collection>_state that records the last revision
// and checksum applied per (cluster, inventory), provisioning (collections
// and indexes in ensure mode, a check in existing mode) and the
// classification of driver errors into permanent and transient ones.
//
// A write upserts every row with the snapshot's revision and checksum, then
// deletes the inventory's documents that carry another revision or
// checksum, and records the state last. No transaction is needed: a write
// interrupted anywhere leaves the state at the previous snapshot, so the
// next write rewrites the whole inventory, and upserts plus the scoped
// delete are idempotent.
//
// It does not decide when to write (the exporter runtime does), stamp
// envelopes, or register itself: the database exporter service lists it.
package mongodb
