// Package verify recomputes the checksums of the revisions a sink holds and
// finds the first one that does not match what was exported: the engine of
// `kollect verify`. A Source reads revisions from one kind of sink (a Git
// repository's history, a PostgreSQL table with its history tables); Check
// recomputes each revision's checksum from its rows with the function the
// aggregator uses (pkg/snapshot.Checksum) and follows the previousChecksum
// chain of docs/contract.md.
//
// It does not write anything, and it does not connect to the bus: it reads
// what the sink holds, with the reader's own credentials.
package verify
