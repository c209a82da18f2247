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
// (transient, reason SinkConfigPending) for Config.ConfigPendingTimeout,
// then the event is dead-lettered with that reason, so that a sink whose
// config never appears (refused, deleted) does not pin its message; a
// binding no longer listed by its inventory's config is skipped.
//
// # Ordering
//
// Replicas share the consumer, so each message goes to one replica. Within
// a replica, each (inventory, sink) binding has one worker holding at most
// one job in flight and one pending. An older or equal revision than the
// one in flight or pending is dropped. A newer event whose delta applies to
// the pending job's newest snapshot (the delta's base is its revision and
// checksum; a delta held as an object is assumed to and checked when
// loaded) joins the pending job's chain instead of replacing it, and a job
// superseded while retrying is put back in front of a chain consecutive to
// it; any other newer event replaces the pending job (each event references
// the full snapshot, so the newest wins). Replays and deletions never
// chain. Before writing, the worker reads the binding's ExportState
// (bus.ExportStateKey) and skips the event when the state holds a newer
// revision or the same revision and checksum: a repeated event is a no-op
// and a restart does not re-export.
//
// Across replicas, the worker then claims the binding: it writes the state
// back with an ExportClaim (owner, revision, expiry) by compare-and-set on
// the revision it read, renews the claim every third of ClaimTTL while the
// sink writes, and records the new state by compare-and-set on the claim,
// never moving it backwards. A replica that finds another's live claim, or
// loses the compare-and-set, waits and re-reads the state, which then
// usually shows the event delivered. So with any number of replicas one
// binding is written by one replica at a time and never asked for a
// revision older than, or equal to, one already recorded. A claim whose
// owner died lapses after ClaimTTL.
//
// Writes are fenced by their claim: the write runs under a context that is
// cancelled, with nothing recorded, as soon as a renewal loses its
// compare-and-set (another replica took the binding over), and a sixth of
// ClaimTTL before the claim expires when no renewal succeeded (a replica cut
// off from the bus but not from the sink), so that it never finishes an
// older write after another replica's newer one. A write that returns
// after its claim was lost records nothing either. The remaining window is
// a sink that ignores cancellation, or a request already on the wire when
// the fence falls, plus clock skew between replicas beyond the sixth of
// the TTL; the sinks stay idempotent and ignore older revisions all the
// same (the conformance suite checks it).
//
// A running backfill holds the binding (busv1.ExportState.Hold, set and
// renewed by the aggregator): the worker writes the replay events of the
// hold's UID and parks every other event of the binding, without counting
// a failure, until the hold is cleared or expires; then the newest parked
// event is written on top. A claim renewal or a state record that meets a
// hold written meanwhile (the stored claim still this replica's) keeps the
// hold and tries again, so the aggregator's renewals never cost a write.
//
// Each attempt's write is bounded by Config.WriteTimeout (the claim is
// renewed meanwhile, so it may exceed ClaimTTL): a sink that accepts and
// never answers fails the attempt transiently, shown in status as
// ExportFailed with "sink write timed out", and the binding retries with
// backoff.
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
// # Loading: deltas first, chunks only for full writes
//
// The runtime decides before it loads. For a sink.DeltaWriter, when the
// export state (not replayed) is exactly the base of the newest event's
// delta, or of the first delta of the job's chain from the state on, the
// deltas (inline, or one object each) are loaded and, for a chain, composed
// into one (per row key the last change wins: an upsert then a delete is a
// delete, a delete then an upsert an upsert; upserts in canonical order),
// and WriteDelta gets a header-only envelope: Items nil, ItemCount,
// Checksum, Revision, Generation and Inventory set, stamped. Neither the
// manifest nor any chunk is read, so a one-row change reads the event and
// nothing else from the bus. A sink whose own state differs loads the full
// envelope through sink.Snapshot.WithFull. In every other case (no state, a
// replayed state, a replay, a deletion, another base, a delta object
// missing, a sink without WriteDelta) the full envelope is loaded and Write
// is called. A chain is capped: past 64 events the older chain is dropped,
// and past 50,000 rows read, or half the snapshot's rows, the composition
// is abandoned; either way the newest snapshot is written in full from its
// manifest. The chain's older events are acknowledged as they join it, as
// superseded events always were: the newest references the whole snapshot,
// so a crash costs the composition (a full write), never data.
//
// A sink whose full write cannot remove rows it does not remember having
// sent (deltaNeeder: the Kafka sink in perRow mode, whose tombstones come
// from deltas or from its in-memory rows) gets a delta whenever the export
// state's snapshot can be found: when no chained delta applies (a restart
// with several revisions pending, an event without a delta, a composition
// past its cap, a deletion), the runtime reads the state's event from the
// job's chain or the inventory's snapshot history, loads both snapshots and
// diffs them by row key (history.go). Only when the history no longer
// holds the state's revision is the snapshot written whole.
//
// Envelopes are read through one replay.Loader per runtime: inline, a
// legacy envelope object, or a manifest whose content-addressed chunks are
// verified against their digests and the event's checksum, and cached by
// digest up to Config.ChunkCacheBytes (--chunk-cache-bytes), so a full write
// of a revision close to one already read downloads only the changed
// chunks. An envelope is loaded once per message for all its bindings.
//
// # Acknowledgement
//
// A message is acknowledged when every binding of this family it addresses
// has finished: delivered, skipped (already delivered or older than the
// export state), superseded by a newer pending revision (an event a newer
// one joins in a chain included: the chain keeps its delta, not its
// message), or dead-lettered.
// Messages addressing none of the family's bindings are acknowledged at
// once, unless a binding they address is missing from an inventory config
// older than the event's generation (a binding just added, whose config
// this exporter has not seen yet): such a message is delivered again a
// second later, whole. Undecodable ones are terminated and dead-lettered. While a binding
// retries, its message stays unacknowledged (held) and the runtime marks it
// in progress every third of the ack wait, so the server neither redelivers
// it nor counts it as lost; since a newer revision supersedes it, each
// failing binding holds at most one message.
//
// The server counts every unacknowledged message, a nak'ed one included,
// against the consumer's MaxAckPending, and delivers nothing more once it
// is reached: many inventories of one tenant whose sink stalls would stop
// the family for every tenant. So a replica holds at most Config.MaxHeld
// messages, and Config.MaxHeldPerNamespace of the inventories of one
// namespace (cluster inventories count as one); a message over either
// budget is acknowledged on arrival (detached) and delivered by the
// workers all the same. A detached event whose replica stops or crashes
// before its write comes back with the inventory's next event (its next
// change or periodic export), not by redelivery. replicas × MaxHeld below the bus's ExporterMaxAckPending keeps
// the consumer delivering whatever the sinks do.
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
// backend for the type) stops retries of that revision: the runtime
// publishes a DeadLetter on bus.DeadLetterSubject and an export status with
// Permanent set, then finishes the binding. The next revision is tried
// afresh.
//
// An object of the event missing from the store (the aggregator collected
// the chunks of an old or periodic event) does not dead-letter the binding
// while a newer event may replace it: the job is finished at once when a
// newer one is pending, else retried 5 times (about half a minute with the default backoff)
// without a failure report or breaker count, and dead-lettered only then.
// Content that fails its digest or the event's checksum is a transient
// error: retried until a newer event supersedes it.
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
// # Credentials, metrics
//
// A backend reads Secrets through Credentials while building a sink; the
// runtime records a digest of each Secret read and re-reads them every
// SecretCheckInterval: a sink whose Secret changed (rotation) is retired
// and rebuilt before its next write. A permanent error re-reads them at
// once and, if they changed, retries with a rebuilt sink before
// dead-lettering. KubeCredentials reads Secrets from the API server.
//
// Config.CredentialPolicy is checked before any read, in one place for
// every backend: a sink's spec.secretRef naming another namespace is a
// permanent SecretRefDenied error before its backend is called (unless
// AllowCrossNamespaceSecretRefs), and the Credentials a backend receives
// refuse any namespace but the sink's (and that one). Backends ask
// AmbientCredentials before using the exporter's own cloud identity for a
// sink without secretRef; it is allowed only for AmbientNamespaces. Denied
// errors carry their reason (DeniedReason) into connection-test replies and
// dead letters.
// Backends dial through pkg/egress, which applies the endpoint address
// policy to every address dialed. With Config.Metrics set the runtime
// records the Name* metrics: export duration and bytes, errors by reason,
// retries, the consumer's backlog and Secret rotations.
//
// A worker whose binding no inventory config lists any more (a removed
// binding, a deleted inventory after its final event) is stopped after a
// minute idle.
package exporter
