// Package history is the store of an inventory's snapshot history on the bus:
// the events kept on its snapshot subject (revision, time, item count,
// checksum) and the envelope of each revision, written as chunks, manifests
// and deltas in the envelope object store. The aggregator's publisher writes
// it (Writer) and picks up where the last published event left off
// (LastPublished); the query service, the exporters, replays and the CLI read
// it back: an index of the events without their envelopes (Scan, Index), one
// event by sequence (At), its envelope, chunks and delta (Loader), one
// revision whole (Fetch, FetchAt), every event (Events).
//
// Replaying is not done here: the aggregator's replayer, the exporter and
// `kollect replay` use this store to do it.
package history
