// Package memory is an in-memory sink: a Store holds, per (cluster,
// inventory), the rows of the last snapshot written and a log of every write
// applied. It passes the sinktest conformance suite and applies deltas, and
// backs the exporter runtime's tests; it suits any local run that needs no
// external system. A Store can require a token, to exercise bad credentials,
// and can inject failures.
//
// It does not persist anything: a restart loses the projection.
package memory
