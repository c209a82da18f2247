// Package exporter is the runtime every exporter family (snapshot, database,
// event) shares: Run consumes the family's durable consumer on the snapshot
// stream and delivers each event to every addressed binding of the family
// through the sinks its Backends build. It owns ordering, retries, the export
// state, status reports, dead letters and connection tests; it does not own
// any backend, projection or SDK (they live in the family services), nor
// reading Secrets from Kubernetes (behind the Credentials interface; the
// Kubernetes Secret reader, with rotation notices, is a later step).
//
// # Config
//
// Run watches, level-based, the family's SinkConfig entries and the
// InventoryConfig entries of the config bucket. A sink is built by its
// type's Backend on first use and rebuilt when its generation changes; the
// replaced sink is closed after the writes in progress on it return. A
// binding whose event names a sink generation not yet seen waits
// (transient, reason SinkConfigPending); a binding no longer listed by its
// inventory's config is skipped.
//
// # Ordering
//
// Replicas share the consumer, so each message goes to one replica. Within
// a replica, each (inventory, sink) binding has one worker holding at most
// one job in flight and one pending: a newer revision replaces a pending
// older one, and an older or equal revision than the one in flight or
// pending is dropped (each event carries the full snapshot, so the newest
// wins). Before writing, the worker reads the binding's ExportState
// (bus.ExportStateKey) and skips the event when the state holds a newer
// revision or the same revision and checksum: a repeated event is a no-op
// and a restart does not re-export. After a write it records the state with
// compare-and-set and never moves it backwards. Across replicas two workers
// can still race on one binding (each read the state before the other
// wrote), so a sink may be asked for a revision older than, or the same as,
// one another replica just wrote; the sink ignores the older revision and
// makes the repeated one a no-op, properties the conformance suite
// (sinktest) checks for every backend. A strict cross-replica claim per
// binding needs a claim in the export state, which busv1.ExportState does
// not carry yet.
//
// # Replay
//
// An event with Replay set (published by kollect replay, addressed to one
// binding, without a delta) re-delivers a historical snapshot: it is written
// whatever the export state's revision, with sink.Snapshot.Replay set so the
// sink does not ignore it as older. In a worker a replay takes the pending
// slot unless a regular event is pending (the newer state wins and the
// replay is dropped), and a regular event arriving later replaces a pending
// replay and supersedes one retrying. After the write the export state keeps
// its Revision and Checksum (never backwards) and records the replayed
// revision and checksum in ExportState.Replayed. The skip rule is therefore:
// skip a regular event older than the state's Revision, or at the same
// revision and checksum while Replayed is unset. So the next regular event
// at or above the state's revision, periodic re-exports of the current
// revision included, rewrites the sink and clears Replayed; an older regular
// event is still never applied, and no delta is applied over a replayed
// snapshot. A replay publishes no status report: the binding's status keeps
// the newest revision delivered.
//
// A delta is handed to the sink (sink.DeltaWriter) only when the export
// state is exactly at the delta's base revision and checksum; otherwise the
// full envelope is written. Envelopes held in the object store are loaded
// once per message with replay.Envelope.
//
// # Acknowledgement
//
// A message is acknowledged when every binding of this family it addresses
// has finished: delivered, skipped (already delivered or older than the
// export state), superseded by a newer pending revision, or dead-lettered.
// Messages addressing none of the family's bindings are acknowledged at
// once; undecodable ones are terminated and dead-lettered. While a binding
// retries, its message stays unacknowledged and the runtime marks it in
// progress every third of the ack wait, so the server neither redelivers it
// nor counts it as lost; since a newer revision supersedes it, each failing
// binding holds at most one message, which bounds the use of MaxAckPending.
// At shutdown unfinished messages are released (nak) for another replica;
// messages the client had buffered but not dispatched come back after the
// ack wait. An ack that is lost only causes a redelivery that the export
// state turns into a no-op.
//
// # Retries
//
// A transient error is retried by the binding's worker with exponential
// backoff and equal jitter (RetryInitial doubling to RetryMax). Each sink
// has a circuit breaker shared by its bindings: after BreakerFailures
// consecutive failures no binding of the sink tries for BreakerCooldown,
// then one attempt decides. Workers are independent, so a failing or open
// sink never delays another sink, even of the same inventory.
//
// A permanent error (sink.IsPermanent: bad credentials, invalid config, no
// backend for the type, a missing envelope object) stops retries of that
// revision: the runtime publishes a DeadLetter on bus.DeadLetterSubject and
// an export status with Permanent set, then finishes the binding. The next
// revision is tried afresh.
//
// # Status and connection tests
//
// Each success and each permanent failure, and the first transient failure
// of a revision, publish a StatusReport with an Export section for the
// binding, quoting the inventory generation of the event. Connection-test
// requests on bus.ConnTestSubject are answered in bus.ConnTestQueue by
// building a fresh sink from the current SinkConfig and calling its
// sink.Checker.
//
// Not yet here: the Kubernetes Secret reader (with rotation notices), the
// endpoint dial policy, Prometheus metrics, a strict cross-replica claim per
// binding, and stopping the idle worker of a binding removed from config.
package exporter
