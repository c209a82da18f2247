// Package memory is an in-memory sink: a Store holds, per (cluster,
// inventory), the rows of the last snapshot written and a log of every write
// applied. It passes the sinktest conformance suite and applies deltas, and
// backs the exporter runtime's tests; it suits any local run that needs no
// external system. A Store can require a token, to exercise bad credentials,
// and can inject failures.
//
// Its sinks check themselves for drift (sink.DriftChecker) and Store.Edit
// damages a projection by hand, for the runtime's drift repair tests.
//
// It does not persist anything: a restart loses the projection.
package memory
