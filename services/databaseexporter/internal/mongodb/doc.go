// Package mongodb is the mongodb backend of the database exporter: it keeps a
// MongoDB collection equal to the latest snapshot of each bound inventory,
// one document per row (docs/contract.md, MongoDB projection).
//
// It owns the document layout (a string _id built from the row identity,
// the identity as top-level fields, the row under row, revision, checksum
// and exportedAt), the state collection <collection>_state that records the
// last revision and checksum applied per (cluster, inventory), provisioning
// (collections and the unique identity index in ensure mode, a check in
// existing mode), the conversion of collections written in the earlier
// layout (the identity document as _id) and the classification of driver
// errors into permanent and transient ones.
//
// A full write reads the inventory's _ids and rows and writes only the
// difference: new rows inserted, changed rows replaced (or, when many,
// deleted by lists of _ids and inserted again), rows that left deleted, in
// unordered bulk writes; the state is recorded last. A delta on the base the
// state holds writes only its rows, the same way. Single documents are
// addressed by their string _id, which MongoDB looks up by index and
// FerretDB pushes down to its storage. No transaction is needed: a write
// interrupted anywhere leaves the state pending, so the next write is a full
// one, which compares again.
// The state is recorded only over a state of the same revision or older
// (M4): a writer that lost its claim and finishes last leaves the newer
// state pending instead. Drift checks of periodic re-exports compare the
// state and the inventory's document count.
//
// It does not decide when to write (the exporter runtime does), stamp
// envelopes, or register itself: the database exporter service lists it.
package mongodb
