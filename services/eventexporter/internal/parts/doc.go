// Package parts owns what the event sinks (Kafka, NATS) share about the
// envelopes they send: splitting one snapshot's envelope into parts that each
// fit a message size limit while keeping the snapshot's identity (docs/contract.md
// "partIndex, partTotal"), and the per-inventory high-water mark that makes
// an older revision a no-op and a repeated revision and checksum a no-op.
//
// It does not own any transport, record layout, key or header: those belong
// to each backend.
package parts
